#include "cli/submit/batch_script.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace rota::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

const char kNoShebang[] =
    "sbatch: error: This does not look like a batch script.  The first\n"
    "sbatch: error: line must start with #! followed by the path to an interpreter.\n"
    "sbatch: error: For instance: #!/bin/sh";

// A script file under the test's temporary directory, removed afterwards.
class ScriptFile {
 public:
  ScriptFile(const std::string& name, const std::string& text)
      : path_(::testing::TempDir() + "/" + std::to_string(getpid()) + "-" + name) {
    std::ofstream(path_, std::ios::binary) << text;
  }
  ~ScriptFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::vector<std::vector<std::string>> ArgsOf(const std::vector<ScriptDirective>& directives) {
  std::vector<std::vector<std::string>> out;
  for (const ScriptDirective& d : directives) out.push_back(d.args);
  return out;
}

TEST(BatchScriptTest, WrapBuildsAShellScript) {
  EXPECT_EQ(WrapScript("python train.py --lr 0.1"),
            "#!/bin/sh\n# This script was created by sbatch --wrap.\n\npython train.py --lr 0.1\n");
}

TEST(BatchScriptTest, CheckAcceptsAShebangScript) {
  EXPECT_TRUE(CheckBatchScript("#!/bin/bash\necho hi\n").ok());
}

TEST(BatchScriptTest, CheckRefusesWhatSlurmRefuses) {
  EXPECT_EQ(CheckBatchScript("").message(), "sbatch: error: Batch script is empty!");
  EXPECT_EQ(CheckBatchScript(" \n\t\n").message(),
            "sbatch: error: Batch script contains only whitespace!");
  EXPECT_EQ(CheckBatchScript("echo hi\n").message(), kNoShebang);
  EXPECT_EQ(CheckBatchScript(std::string("#!/bin/sh\necho \0hi\n", 20)).message(),
            "sbatch: error: Batch script contains NULL character");
  EXPECT_EQ(CheckBatchScript("#!/bin/sh\r\necho hi\r\n").message(),
            "sbatch: error: Batch script contains DOS line breaks (\\r\\n)\n"
            "sbatch: error: instead of expected UNIX line breaks (\\n).");
}

TEST(BatchScriptTest, DirectivesStopAtTheFirstCommand) {
  const std::string script =
      "#!/bin/bash\n"
      "#SBATCH -N 2\n"
      "\n"
      "# an ordinary comment\n"
      "   # an indented comment\n"
      "#SBATCH --ntasks=8\n"
      "module load cuda\n"
      "#SBATCH --partition=never\n";
  std::vector<ScriptDirective> directives = ExtractDirectives(script);
  ASSERT_EQ(directives.size(), 2u);
  EXPECT_EQ(directives[0].line, 2);
  EXPECT_THAT(directives[0].args, ElementsAre("-N", "2"));
  EXPECT_EQ(directives[1].line, 6);
  EXPECT_THAT(directives[1].args, ElementsAre("--ntasks=8"));
}

TEST(BatchScriptTest, TrailingCommentsAndQuotes) {
  const std::string script =
      "#!/bin/sh\n"
      "#SBATCH --time=10 # ten minutes\n"
      "#SBATCH --job-name=\"my job\"   #comment\n"
      "#SBATCH -J 'single quoted' --comment=a#b\n"
      "#SBATCH --comment=\"has # inside\"\n"
      "#SBATCH\t--qos=tab\n"
      "#SBATCH -o \"unclosed quote\n";
  EXPECT_THAT(ArgsOf(ExtractDirectives(script)),
              ElementsAre(ElementsAre("--time=10"), ElementsAre("--job-name=my job"),
                          ElementsAre("-J", "single quoted", "--comment=a#b"),
                          ElementsAre("--comment=has # inside"), ElementsAre("--qos=tab"),
                          ElementsAre("-o", "unclosed quote")));
}

TEST(BatchScriptTest, OnlyExactDirectivesCount) {
  const std::string script =
      "#!/bin/sh\n"
      "##SBATCH -N 9\n"  // Commented out.
      " #SBATCH -N 8\n"  // Not at column 0.
      "#SBATCH-N 7\n"    // No white space after the prefix.
      "#sbatch -N 6\n"   // Case matters.
      "#SBATCH\n"        // Nothing to parse.
      "#SBATCH # only a comment\n"
      "#SBATCH -N 1\n";
  EXPECT_THAT(ArgsOf(ExtractDirectives(script)), ElementsAre(ElementsAre("-N", "1")));
}

TEST(BatchScriptTest, PrefixIsAParameter) {
  EXPECT_THAT(ArgsOf(ExtractDirectives("#!/bin/sh\n#ROTA -n 2\n#SBATCH -n 3\n", "#ROTA")),
              ElementsAre(ElementsAre("-n", "2")));
}

TEST(BatchScriptTest, ReadsFromStdinOrFile) {
  std::istringstream in("#!/bin/sh\necho stdin\n");
  EXPECT_EQ(*ReadBatchScript("", in), "#!/bin/sh\necho stdin\n");
  ScriptFile file("read.sh", "#!/bin/sh\necho file\n");
  std::istringstream unused;
  EXPECT_EQ(*ReadBatchScript(file.path(), unused), "#!/bin/sh\necho file\n");
  EXPECT_EQ(ReadBatchScript("/nonexistent/job.sh", unused).status().message(),
            "sbatch: error: Unable to open file /nonexistent/job.sh");
}

const char kTooLarge[] =
    "sbatch: error: Batch job submission failed: "
    "Pathname of a file, directory or other parameter too long";

TEST(BatchScriptTest, ReadsNoMoreThanTheBound) {
  std::istringstream in("#!/bin/sh\n" + std::string(100, '#'));
  EXPECT_EQ(ReadBatchScript("", in, 100).status().message(), kTooLarge);
  std::istringstream fits("#!/bin/sh\n" + std::string(90, '#'));
  EXPECT_EQ(ReadBatchScript("", fits, 100)->size(), 100u);
  // An endless file ends at the bound (4 MB by default), not in bad_alloc.
  std::istringstream unused;
  EXPECT_EQ(ReadBatchScript("/dev/zero", unused).status().message(), kTooLarge);
}

JobOptionsContext Context(Environment env = {}) { return {std::move(env), "/home/ada", 1000}; }

TEST(SbatchInvocationTest, MaxScriptSizeBoundsScriptAndEnvironment) {
  JobOptionsContext small = Context({{"BIG", std::string(200, 'x')}});
  small.max_script_bytes = 100;
  std::istringstream in;
  EXPECT_EQ(ParseSbatchInvocation({"/dev/zero"}, small, in).status().message(), kTooLarge);
  EXPECT_EQ(ParseSbatchInvocation({"--wrap=true"}, small, in).status().message(), kTooLarge);
  small.env.clear();
  EXPECT_TRUE(ParseSbatchInvocation({"--wrap=true"}, small, in).ok());
  EXPECT_EQ(
      ParseSbatchInvocation({"--wrap=" + std::string(100, 'x')}, small, in).status().message(),
      kTooLarge);
}

TEST(SbatchInvocationTest, AllThreeSourcesInOrderOfPrecedence) {
  ScriptFile file("train.sh",
                  "#!/bin/bash\n"
                  "#SBATCH --partition=script --account=script\n"
                  "#SBATCH --qos=script -t 10\n"
                  "#SBATCH -N 2-4  # a node range\n"
                  "srun python train.py\n");
  std::istringstream in;
  Result<ParsedJobOptions> parsed =
      ParseSbatchInvocation({"-p", "cli", file.path(), "--epochs", "3"},
                            Context({{"SBATCH_PARTITION", "env"}, {"SBATCH_ACCOUNT", "env"}}), in);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  const wire::JobSpec& s = parsed->spec;
  EXPECT_EQ(s.partition(), "cli");
  EXPECT_EQ(s.account(), "env");
  EXPECT_EQ(s.qos(), "script");
  EXPECT_EQ(s.time_limit_s(), 600);
  EXPECT_EQ(s.min_nodes(), 2u);
  EXPECT_EQ(s.max_nodes(), 4u);
  EXPECT_EQ(s.name(), file.path().substr(file.path().rfind('/') + 1));
  EXPECT_THAT(s.argv(), ElementsAre("--epochs", "3"));
  EXPECT_EQ(s.script().substr(0, 11), "#!/bin/bash");
}

TEST(SbatchInvocationTest, WrapNeedsNoScript) {
  std::istringstream in;
  Result<ParsedJobOptions> parsed =
      ParseSbatchInvocation({"--wrap=hostname", "-n1"}, Context(), in);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->spec.script(), WrapScript("hostname"));
  EXPECT_EQ(parsed->spec.name(), "wrap");
  EXPECT_EQ(ParseSbatchInvocation({"--wrap=hostname", "extra"}, Context(), in).status().message(),
            "sbatch: error: Script arguments not permitted with --wrap option");
}

TEST(SbatchInvocationTest, ReadsStdinWhenNoScriptIsNamed) {
  std::istringstream in("#!/bin/sh\n#SBATCH -J from-stdin\n#SBATCH --parsable\nhostname\n");
  Result<ParsedJobOptions> parsed = ParseSbatchInvocation({"-n2"}, Context(), in);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->spec.name(), "from-stdin");
  EXPECT_TRUE(parsed->parsable);
  EXPECT_EQ(parsed->spec.num_tasks(), 2u);

  std::istringstream unnamed("#!/bin/sh\nhostname\n");
  EXPECT_EQ(ParseSbatchInvocation({}, Context(), unnamed)->spec.name(), "sbatch");
}

TEST(SbatchInvocationTest, HelpReadsNoScript) {
  std::istringstream in("not a script");
  Result<ParsedJobOptions> parsed = ParseSbatchInvocation({"--help"}, Context(), in);
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(parsed->help);
  EXPECT_EQ(in.tellg(), 0);
}

TEST(SbatchInvocationTest, ErrorsFromEachStage) {
  std::istringstream in("echo no shebang\n");
  EXPECT_EQ(ParseSbatchInvocation({}, Context(), in).status().message(), kNoShebang);
  std::istringstream unused;
  EXPECT_EQ(ParseSbatchInvocation({"--bogus"}, Context(), unused).status().message(),
            "sbatch: unrecognized option '--bogus'\nTry \"sbatch --help\" for more information");
  ScriptFile bad("bad.sh", "#!/bin/sh\n#SBATCH --ntasks=lots\n");
  EXPECT_EQ(ParseSbatchInvocation({bad.path()}, Context(), unused).status().message(),
            "sbatch: error: Invalid numeric value \"lots\" for --ntasks.\n"
            "sbatch: error: (in the #SBATCH directive on line 2)");
}

TEST(SbatchInvocationTest, OptionsAfterTheScriptBelongToTheScript) {
  ScriptFile file("args.sh", "#!/bin/sh\n#SBATCH -n 3\n");
  std::istringstream unused;
  Result<ParsedJobOptions> parsed =
      ParseSbatchInvocation({file.path(), "-n", "9"}, Context(), unused);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->spec.num_tasks(), 3u);
  EXPECT_THAT(parsed->spec.argv(), ElementsAre("-n", "9"));
  EXPECT_THAT(parsed->warnings, IsEmpty());
}

}  // namespace
}  // namespace rota::cli
