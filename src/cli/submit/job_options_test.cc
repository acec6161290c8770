#include "cli/submit/job_options.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <ctime>
#include <set>

#include "cli/event_time.h"

namespace rota::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// --begin's clock forms use local time; pin it so expectations are exact.
const bool kUtc = [] {
  setenv("TZ", "UTC", 1);
  tzset();
  return true;
}();

int64_t Utc(int year, int month, int day, int hour = 0, int minute = 0, int second = 0) {
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  return static_cast<int64_t>(timegm(&tm));
}

// Sunday 2024-03-10 14:30:00 UTC.
const int64_t kNow = Utc(2024, 3, 10, 14, 30, 0);

struct Call {
  std::vector<std::string> args;
  Environment env = {};
  std::vector<ScriptDirective> directives = {};
  Command command = Command::kSbatch;
};

Result<ParsedJobOptions> Parse(const Call& call) {
  JobOptionsContext context{call.env, "/home/ada", kNow};
  return ParseJobOptions(call.command, {call.args, call.directives}, context);
}

ParsedJobOptions MustParse(const Call& call) {
  Result<ParsedJobOptions> parsed = Parse(call);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  return parsed.ok() ? std::move(parsed).value() : ParsedJobOptions{};
}

std::string ErrorOf(const Call& call) {
  Result<ParsedJobOptions> parsed = Parse(call);
  EXPECT_FALSE(parsed.ok());
  return parsed.status().message();
}

wire::JobSpec SpecOf(std::vector<std::string> args) { return MustParse({std::move(args)}).spec; }

TEST(JobOptionsTest, UmaskTravelsInSlurmUmaskUnlessTheUserSetIt) {
  EXPECT_EQ(UmaskText(077), "0077");
  EXPECT_EQ(UmaskText(022), "0022");
  EXPECT_EQ(UmaskText(0), "0000");
  const mode_t saved = umask(077);
  unsetenv("SLURM_UMASK");
  ExportUmask();
  EXPECT_STREQ(std::getenv("SLURM_UMASK"), "0077");
  setenv("SLURM_UMASK", "0002", 1);
  ExportUmask();
  EXPECT_STREQ(std::getenv("SLURM_UMASK"), "0002");
  unsetenv("SLURM_UMASK");
  umask(saved);
}

TEST(JobOptionsTest, LongOptionsFillTheSpec) {
  wire::JobSpec s = SpecOf({
      "--job-name=train",
      "--partition=gpu",
      "--account=physics",
      "--qos=high",
      "--nodes=2",
      "--ntasks=8",
      "--ntasks-per-node=4",
      "--cpus-per-task=6",
      "--gres=gpu:a100:2",
      "--gpu-bind=closest",
      "--time=1:00:00",
      "--time-min=30",
      "--output=out-%j.txt",
      "--error=err-%j.txt",
      "--input=in.txt",
      "--chdir=/scratch/ada",
      "--exclusive",
      "--constraint=a100&ib",
      "--nodelist=n[1-2]",
      "--exclude=n3",
      "--array=1-10%2",
      "--dependency=afterok:5",
      "--hold",
      "--requeue",
      "--nice=10",
      "--signal=B:USR1@60",
      "--switches=1@10:00",
      "--export=NONE",
      "--open-mode=append",
      "--gres-flags=enforce-binding",
      "--reservation=maint",
      "--comment=hello world",
      "--ntasks-per-socket=2",
      "--sockets-per-node=2",
      "--overcommit",
      "--contiguous",
      "--cpu-bind=cores",
      "--mem-per-gpu=10G",
  });
  EXPECT_EQ(s.name(), "train");
  EXPECT_EQ(s.partition(), "gpu");
  EXPECT_EQ(s.account(), "physics");
  EXPECT_EQ(s.qos(), "high");
  EXPECT_EQ(s.min_nodes(), 2u);
  EXPECT_EQ(s.max_nodes(), 0u);
  EXPECT_EQ(s.num_tasks(), 8u);
  EXPECT_EQ(s.ntasks_per_node(), 4u);
  EXPECT_EQ(s.cpus_per_task(), 6u);
  EXPECT_EQ(s.gres(), "gpu:a100:2");
  EXPECT_EQ(s.gpu_bind(), "closest");
  EXPECT_EQ(s.time_limit_s(), 3600);
  EXPECT_EQ(s.time_min_s(), 1800);
  EXPECT_EQ(s.std_out(), "out-%j.txt");
  EXPECT_EQ(s.std_err(), "err-%j.txt");
  EXPECT_EQ(s.std_in(), "in.txt");
  EXPECT_EQ(s.work_dir(), "/scratch/ada");
  EXPECT_TRUE(s.exclusive());
  EXPECT_EQ(s.constraint(), "a100&ib");
  EXPECT_EQ(s.nodelist(), "n[1-2]");
  EXPECT_EQ(s.exclude(), "n3");
  EXPECT_EQ(s.array(), "1-10%2");
  EXPECT_EQ(s.dependency(), "afterok:5");
  EXPECT_TRUE(s.hold());
  EXPECT_EQ(s.requeue(), 1);
  EXPECT_EQ(s.nice(), 10);
  EXPECT_EQ(s.signal(), "B:USR1@60");
  EXPECT_EQ(s.switches(), "1@10:00");
  EXPECT_EQ(s.export_env(), "NONE");
  EXPECT_EQ(s.open_mode(), "append");
  EXPECT_EQ(s.gres_flags(), "enforce-binding");
  EXPECT_EQ(s.reservation(), "maint");
  EXPECT_EQ(s.comment(), "hello world");
  EXPECT_EQ(s.ntasks_per_socket(), 2u);
  EXPECT_EQ(s.sockets_per_node(), 2u);
  EXPECT_TRUE(s.overcommit());
  EXPECT_TRUE(s.contiguous());
  EXPECT_EQ(s.cpu_bind(), "cores");
  EXPECT_EQ(s.mem_per_gpu_mb(), 10240u);

  // Those the options above exclude.
  wire::JobSpec per_gpu = SpecOf({"-n4", "--gpus=2", "--ntasks-per-gpu=2", "--cpus-per-gpu=8"});
  EXPECT_EQ(per_gpu.ntasks_per_gpu(), 2u);
  EXPECT_EQ(per_gpu.cpus_per_gpu(), 8u);
}

TEST(JobOptionsTest, GpuOptionsFillTheSpec) {
  wire::JobSpec s =
      SpecOf({"--gpus=a100:4", "--gpus-per-node=2", "--gpus-per-task=1", "--gpus-per-socket=v100:1",
              "--sockets-per-node=2", "--mem-per-cpu=2G", "--gpu-freq=high"});
  EXPECT_EQ(s.gpus(), "a100:4");
  EXPECT_EQ(s.gpus_per_node(), "2");
  EXPECT_EQ(s.gpus_per_task(), "1");
  EXPECT_EQ(s.gpus_per_socket(), "v100:1");
  EXPECT_EQ(s.gpu_freq(), "high");
  EXPECT_EQ(s.mem_per_cpu_mb(), 2048u);
  EXPECT_FALSE(s.mem_given());
}

TEST(JobOptionsTest, ShortOptionsFillTheSpec) {
  wire::JobSpec s = SpecOf(
      {"-J", "j",  "-p", "p",  "-A", "a",   "-q", "q",         "-N", "3",  "-n",     "6", "-c", "2",
       "-G", "2",  "-t", "10", "-o", "o",   "-e", "e",         "-i", "i",  "-D",     "d", "-C", "f",
       "-w", "n1", "-x", "n2", "-a", "0-3", "-d", "singleton", "-H", "-b", "now+60", "-O"});
  EXPECT_EQ(s.name(), "j");
  EXPECT_EQ(s.partition(), "p");
  EXPECT_EQ(s.account(), "a");
  EXPECT_EQ(s.qos(), "q");
  EXPECT_EQ(s.min_nodes(), 3u);
  EXPECT_EQ(s.num_tasks(), 6u);
  EXPECT_EQ(s.cpus_per_task(), 2u);
  EXPECT_EQ(s.gpus(), "2");
  EXPECT_EQ(s.time_limit_s(), 600);
  EXPECT_EQ(s.std_out(), "o");
  EXPECT_EQ(s.std_err(), "e");
  EXPECT_EQ(s.std_in(), "i");
  EXPECT_EQ(s.work_dir(), "/home/ada/d");
  EXPECT_EQ(s.constraint(), "f");
  EXPECT_EQ(s.nodelist(), "n1");
  EXPECT_EQ(s.exclude(), "n2");
  EXPECT_EQ(s.array(), "0-3");
  EXPECT_EQ(s.dependency(), "singleton");
  EXPECT_TRUE(s.hold());
  EXPECT_EQ(s.begin_time(), kNow + 60);
  EXPECT_TRUE(s.overcommit());
}

TEST(JobOptionsTest, CommandFlagsStayOutOfTheSpec) {
  ParsedJobOptions p = MustParse({{"--parsable", "--test-only", "-W", "-Q", "-v", "-vv", "--wrap",
                                   "echo hi", "-h", "-V", "--usage"}});
  EXPECT_TRUE(p.parsable);
  EXPECT_TRUE(p.test_only);
  EXPECT_TRUE(p.wait);
  EXPECT_TRUE(p.quiet);
  EXPECT_EQ(p.verbose, 3);
  EXPECT_TRUE(p.wrap_given);
  EXPECT_EQ(p.wrap, "echo hi");
  EXPECT_TRUE(p.help);
  EXPECT_TRUE(p.version);
  EXPECT_TRUE(p.usage);
  EXPECT_THAT(p.warnings, IsEmpty());
  ParsedJobOptions plain = MustParse({{"job.sh"}});
  EXPECT_FALSE(plain.parsable || plain.test_only || plain.wait || plain.wrap_given);
}

TEST(JobOptionsTest, BundledShortOptionsWithAttachedValues) {
  ParsedJobOptions p = MustParse({{"-N2", "-n8", "-HOc4", "-Jname", "job.sh"}});
  EXPECT_EQ(p.spec.min_nodes(), 2u);
  EXPECT_EQ(p.spec.num_tasks(), 8u);
  EXPECT_TRUE(p.spec.hold());
  EXPECT_TRUE(p.spec.overcommit());
  EXPECT_EQ(p.spec.cpus_per_task(), 4u);
  EXPECT_EQ(p.spec.name(), "name");
  EXPECT_THAT(p.positional, ElementsAre("job.sh"));
}

TEST(JobOptionsTest, LongOptionValueMaySeparateAndNameMayBeAbbreviated) {
  wire::JobSpec s = SpecOf({"--partition", "debug", "--job", "x", "--cpus-per-t=3"});
  EXPECT_EQ(s.partition(), "debug");
  EXPECT_EQ(s.name(), "x");
  EXPECT_EQ(s.cpus_per_task(), 3u);
}

TEST(JobOptionsTest, NodeCountsAndRanges) {
  wire::JobSpec range = SpecOf({"-N", "2-4"});
  EXPECT_EQ(range.min_nodes(), 2u);
  EXPECT_EQ(range.max_nodes(), 4u);
  wire::JobSpec same = SpecOf({"--nodes=3-3"});
  EXPECT_EQ(same.min_nodes(), 3u);
  EXPECT_EQ(same.max_nodes(), 3u);
  // A later single count drops an earlier range's maximum.
  wire::JobSpec later = SpecOf({"-N2-4", "-N5"});
  EXPECT_EQ(later.min_nodes(), 5u);
  EXPECT_EQ(later.max_nodes(), 0u);
  for (std::string bad : {"4-2", "0", "abc", "2-", "-3", "1-x"}) {
    EXPECT_EQ(ErrorOf({{"-N", bad}}), "sbatch: error: invalid node count `" + bad + "'") << bad;
  }
}

TEST(JobOptionsTest, LastOccurrenceWins) {
  wire::JobSpec s = SpecOf({"-J", "first", "--job-name=second", "-n", "2", "--ntasks=5",
                            "--requeue", "--no-requeue", "-t", "5", "-t", "7"});
  EXPECT_EQ(s.name(), "second");
  EXPECT_EQ(s.num_tasks(), 5u);
  EXPECT_EQ(s.requeue(), 2);
  EXPECT_EQ(s.time_limit_s(), 7 * 60);
}

TEST(JobOptionsTest, CommandLineBeatsEnvironmentBeatsScript) {
  ParsedJobOptions p = MustParse({
      .args = {"--partition=cli", "job.sh"},
      .env = {{"SBATCH_PARTITION", "env"},
              {"SBATCH_JOB_NAME", "env-name"},
              {"SBATCH_TIMELIMIT", "20"}},
      .directives = {{2, {"--partition=script", "-J", "script-name"}},
                     {3, {"--account=script-acct", "-t", "10"}}},
  });
  EXPECT_EQ(p.spec.partition(), "cli");        // All three: the command line.
  EXPECT_EQ(p.spec.name(), "env-name");        // Script and env: env.
  EXPECT_EQ(p.spec.time_limit_s(), 20 * 60);   // Script and env: env.
  EXPECT_EQ(p.spec.account(), "script-acct");  // Script only.
}

TEST(JobOptionsTest, TimeLimitForms) {
  EXPECT_EQ(SpecOf({"-t", "30"}).time_limit_s(), 1800);
  EXPECT_EQ(SpecOf({"-t", "5:30"}).time_limit_s(), 360);  // Whole minutes, rounded up
  EXPECT_EQ(SpecOf({"-t", "1:02:03"}).time_limit_s(), 3780);
  EXPECT_EQ(SpecOf({"-t", "2-0"}).time_limit_s(), 2 * 86400);
  EXPECT_EQ(SpecOf({"-t", "1-12:00:00"}).time_limit_s(), 36 * 3600);
  EXPECT_EQ(SpecOf({"-t", "UNLIMITED"}).time_limit_s(), -1);
  EXPECT_EQ(SpecOf({"-t", "infinite"}).time_limit_s(), -1);
  EXPECT_EQ(SpecOf({"-t", "0"}).time_limit_s(), -1);  // Zero asks for no limit.
  EXPECT_EQ(SpecOf({"-t", "-1"}).time_limit_s(), -1);
  EXPECT_EQ(SpecOf({"--time=5-"}).time_limit_s(), 5 * 86400);
  EXPECT_EQ(SpecOf({"--time-min=1-"}).time_min_s(), 86400);
  EXPECT_EQ(
      MustParse({.args = {"job.sh"}, .env = {{"SBATCH_TIMELIMIT", "2-"}}}).spec.time_limit_s(),
      2 * 86400);
  EXPECT_EQ(SpecOf({}).time_limit_s(), 0);  // Not given.
  EXPECT_EQ(SpecOf({"--time-min=1:00:00"}).time_min_s(), 3600);
  EXPECT_EQ(ErrorOf({{"-t", "abc"}}), "sbatch: error: Invalid --time specification");
  EXPECT_EQ(ErrorOf({{"--time=1:2:3:4"}}), "sbatch: error: Invalid --time specification");
  EXPECT_EQ(ErrorOf({{"--time-min=x"}}), "sbatch: error: Invalid --time-min specification");
}

TEST(JobOptionsTest, InvalidNumbers) {
  EXPECT_EQ(ErrorOf({{"--ntasks=abc"}}),
            "sbatch: error: Invalid numeric value \"abc\" for --ntasks.");
  EXPECT_EQ(ErrorOf({{"-n", "0"}}), "sbatch: error: Invalid numeric value \"0\" for --ntasks.");
  EXPECT_EQ(ErrorOf({{"-c", "-2"}}),
            "sbatch: error: Invalid numeric value \"-2\" for --cpus-per-task.");
  EXPECT_EQ(ErrorOf({{"--ntasks-per-node=4x"}}),
            "sbatch: error: Invalid numeric value \"4x\" for --ntasks-per-node.");
  EXPECT_EQ(ErrorOf({{"--cpus-per-gpu=99999999999"}}),
            "sbatch: error: Invalid numeric value \"99999999999\" for --cpus-per-gpu.");
}

TEST(JobOptionsTest, UnknownAndMalformedOptionsUseGetoptWording) {
  EXPECT_EQ(ErrorOf({{"--frob"}}),
            "sbatch: unrecognized option '--frob'\nTry \"sbatch --help\" for more information");
  EXPECT_EQ(ErrorOf({{"--frob=3"}}),
            "sbatch: unrecognized option '--frob=3'\nTry \"sbatch --help\" for more information");
  EXPECT_EQ(ErrorOf({{"-Hz"}}),
            "sbatch: invalid option -- 'z'\nTry \"sbatch --help\" for more information");
  EXPECT_EQ(ErrorOf({{"--ntasks"}}),
            "sbatch: option '--ntasks' requires an argument\n"
            "Try \"sbatch --help\" for more information");
  EXPECT_EQ(ErrorOf({{"-n"}}),
            "sbatch: option requires an argument -- 'n'\n"
            "Try \"sbatch --help\" for more information");
  EXPECT_EQ(ErrorOf({{"--hold=yes"}}),
            "sbatch: option '--hold' doesn't allow an argument\n"
            "Try \"sbatch --help\" for more information");
  EXPECT_EQ(ErrorOf({{"--gpus-per=1"}}),
            "sbatch: option '--gpus-per=1' is ambiguous; possibilities: '--gpus-per-node' "
            "'--gpus-per-task' '--gpus-per-socket'\n"
            "Try \"sbatch --help\" for more information");
}

TEST(JobOptionsTest, ParsingAgainAfterAnErrorStartsClean) {
  // An error in the middle of a bundle leaves getopt's cursor inside it.
  EXPECT_FALSE(Parse({{"-HzN3"}}).ok());
  wire::JobSpec s = SpecOf({"-N4"});
  EXPECT_EQ(s.min_nodes(), 4u);
  EXPECT_FALSE(s.hold());
}

TEST(JobOptionsTest, OptionsAreCommandSpecific) {
  EXPECT_EQ(ErrorOf({.args = {"--array=1-3"}, .command = Command::kSrun}),
            "srun: unrecognized option '--array=1-3'\nTry \"srun --help\" for more information");
  EXPECT_EQ(ErrorOf({.args = {"-b", "now"}, .command = Command::kSrun}),
            "srun: invalid option -- 'b'\nTry \"srun --help\" for more information");
  EXPECT_EQ(ErrorOf({.args = {"--wrap=x"}, .command = Command::kSalloc}),
            "salloc: unrecognized option '--wrap=x'\n"
            "Try \"salloc --help\" for more information");
  ParsedJobOptions srun = MustParse({.args = {"--begin=now+5", "-n2"}, .command = Command::kSrun});
  EXPECT_EQ(srun.spec.begin_time(), kNow + 5);
  EXPECT_EQ(srun.spec.num_tasks(), 2u);
}

TEST(JobOptionsTest, PositionalArgumentsEndOptionParsing) {
  ParsedJobOptions p = MustParse({{"-n2", "job.sh", "--ntasks=9", "input.dat"}});
  EXPECT_EQ(p.spec.num_tasks(), 2u);
  EXPECT_THAT(p.positional, ElementsAre("job.sh", "--ntasks=9", "input.dat"));
  EXPECT_THAT(p.spec.argv(), ElementsAre("--ntasks=9", "input.dat"));

  ParsedJobOptions dashdash = MustParse({{"-n2", "--", "-x"}});
  EXPECT_THAT(dashdash.positional, ElementsAre("-x"));

  ParsedJobOptions srun = MustParse({.args = {"-n4", "hostname", "-s"}, .command = Command::kSrun});
  EXPECT_THAT(srun.spec.argv(), ElementsAre("hostname", "-s"));
}

TEST(JobOptionsTest, ClustersAreKeptForTheCommandToCheck) {
  EXPECT_EQ(MustParse({{"-M", "anchor", "job.sh"}}).clusters, "anchor");
  EXPECT_EQ(MustParse({{"--clusters=a,b", "job.sh"}}).clusters, "a,b");
  EXPECT_EQ(MustParse({{"--cluster=anchor", "job.sh"}}).clusters, "anchor");
  EXPECT_EQ(MustParse({{"job.sh"}}).clusters, "");
  EXPECT_EQ(MustParse({.args = {"job.sh"}, .env = {{"SBATCH_CLUSTERS", "anchor"}}}).clusters,
            "anchor");
  EXPECT_EQ(
      MustParse({.args = {"true"}, .env = {{"SLURM_CLUSTERS", "x"}}, .command = Command::kSrun})
          .clusters,
      "x");
  EXPECT_EQ(MustParse({.args = {}, .env = {{"SALLOC_CLUSTERS", "y"}}, .command = Command::kSalloc})
                .clusters,
            "y");
}

TEST(JobOptionsTest, MemoryOptions) {
  wire::JobSpec mem = SpecOf({"--mem=16G"});
  EXPECT_EQ(mem.mem_per_node_mb(), 16384u);
  EXPECT_TRUE(mem.mem_given());
  wire::JobSpec all = SpecOf({"--mem=0"});
  EXPECT_EQ(all.mem_per_node_mb(), 0u);
  EXPECT_TRUE(all.mem_given());  // All of each node's memory.
  EXPECT_EQ(SpecOf({"--mem-per-cpu=512"}).mem_per_cpu_mb(), 512u);
  EXPECT_EQ(SpecOf({"--mem=16GB"}).mem_per_node_mb(), 16384u);
  EXPECT_EQ(SpecOf({"--mem=500MB"}).mem_per_node_mb(), 500u);
  EXPECT_EQ(SpecOf({"--mem-per-cpu=2gb"}).mem_per_cpu_mb(), 2048u);
  EXPECT_EQ(ErrorOf({{"--mem=16B"}}), "sbatch: error: invalid memory constraint: 16B");
  EXPECT_EQ(ErrorOf({{"--mem=9223372036854775808"}}),
            "sbatch: error: invalid memory constraint: 9223372036854775808");
  EXPECT_EQ(ErrorOf({{"--mem=12Q"}}), "sbatch: error: invalid memory constraint: 12Q");
  EXPECT_EQ(ErrorOf({{"--mem-per-cpu=lots"}}), "sbatch: error: invalid memory constraint: lots");
}

TEST(JobOptionsTest, MemoryOptionsExcludeEachOtherWithinOneSource) {
  const std::string fatal =
      "sbatch: fatal: --mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.";
  EXPECT_EQ(ErrorOf({{"--mem=4G", "--mem-per-cpu=1G"}}), fatal);
  EXPECT_EQ(ErrorOf({{"--mem-per-gpu=4G", "--mem-per-cpu=1G"}}), fatal);
  EXPECT_EQ(ErrorOf({.args = {}, .directives = {{2, {"--mem=1G"}}, {3, {"--mem-per-gpu=2G"}}}}),
            fatal);
  EXPECT_EQ(
      ErrorOf({.args = {}, .env = {{"SBATCH_MEM_PER_NODE", "1G"}, {"SBATCH_MEM_PER_CPU", "1G"}}}),
      fatal);
  // The same option twice is fine: the last one wins.
  EXPECT_EQ(SpecOf({"--mem=1G", "--mem=2G"}).mem_per_node_mb(), 2048u);
}

TEST(JobOptionsTest, AHigherSourceReplacesTheWholeMemoryRequest) {
  ParsedJobOptions p = MustParse({.args = {"--mem=8G"},
                                  .env = {{"SBATCH_MEM_PER_GPU", "3G"}},
                                  .directives = {{2, {"--mem-per-cpu=2G"}}}});
  EXPECT_EQ(p.spec.mem_per_node_mb(), 8192u);
  EXPECT_TRUE(p.spec.mem_given());
  EXPECT_EQ(p.spec.mem_per_cpu_mb(), 0u);
  EXPECT_EQ(p.spec.mem_per_gpu_mb(), 0u);

  ParsedJobOptions env = MustParse({.args = {"--gpus=1"},
                                    .env = {{"SBATCH_MEM_PER_GPU", "3G"}},
                                    .directives = {{2, {"--mem=2G"}}}});
  EXPECT_FALSE(env.spec.mem_given());
  EXPECT_EQ(env.spec.mem_per_node_mb(), 0u);
  EXPECT_EQ(env.spec.mem_per_gpu_mb(), 3072u);
}

TEST(JobOptionsTest, GpuCombinationsSlurmRefuses) {
  EXPECT_EQ(ErrorOf({{"--gpus-per-task=1", "job.sh"}}),
            "sbatch: error: --gpus-per-task used without either --gpus or -n/--ntasks is not "
            "allowed.\nsbatch: error: Batch job submission failed: Invalid generic resource (gres) "
            "specification");
  EXPECT_EQ(ErrorOf({.args = {"--gpus-per-task=1", "true"}, .command = Command::kSrun}),
            "srun: error: --gpus-per-task used without either --gpus or -n/--ntasks is not "
            "allowed.\nsrun: error: Unable to allocate resources: Invalid generic resource (gres) "
            "specification");
  EXPECT_EQ(ErrorOf({.args = {"--gpus-per-task=1"}, .command = Command::kSalloc}),
            "salloc: error: --gpus-per-task used without either --gpus or -n/--ntasks is not "
            "allowed.\nsalloc: error: Job submit/allocate failed: Invalid generic resource (gres) "
            "specification");
  // A task count from any source, --ntasks-per-node, or a job-wide --gpus will do.
  EXPECT_TRUE(Parse({{"-n2", "--gpus-per-task=1"}}).ok());
  EXPECT_TRUE(Parse({{"-N2", "--ntasks-per-node=2", "--gpus-per-task=1"}}).ok());
  EXPECT_TRUE(Parse({{"--gpus=4", "--gpus-per-task=2"}}).ok());
  EXPECT_TRUE(Parse({.args = {"--gpus-per-task=1"}, .directives = {{2, {"-n", "4"}}}}).ok());

  EXPECT_EQ(ErrorOf({{"-n4", "--gpus-per-task=1", "--ntasks-per-gpu=2"}}),
            "sbatch: fatal: --gpus-per-task is mutually exclusive with --ntasks-per-gpu and "
            "SLURM_NTASKS_PER_GPU");
  EXPECT_EQ(ErrorOf({{"--gpus-per-socket=1", "--sockets-per-node=1", "--ntasks-per-gpu=2"}}),
            "sbatch: fatal: --gpus-per-socket is mutually exclusive with --ntasks-per-gpu and "
            "SLURM_NTASKS_PER_GPU");
  EXPECT_EQ(ErrorOf({{"--ntasks-per-node=2", "--ntasks-per-gpu=2"}}),
            "sbatch: fatal: --ntasks-per-node is mutually exclusive with --ntasks-per-gpu and "
            "SLURM_NTASKS_PER_GPU");

  EXPECT_EQ(ErrorOf({{"-G1", "-c2", "--cpus-per-gpu=4"}}),
            "sbatch: fatal: --cpus-per-task and --cpus-per-gpu are mutually exclusive");
  EXPECT_EQ(ErrorOf({.args = {"-G1"}, .directives = {{2, {"--cpus-per-gpu=4"}}, {3, {"-c", "2"}}}}),
            "sbatch: fatal: --cpus-per-task and --cpus-per-gpu are mutually exclusive");
  // The command line wins over the other from the environment.
  wire::JobSpec srun_task = MustParse({.args = {"-G1", "-c2", "true"},
                                       .env = {{"SLURM_CPUS_PER_GPU", "4"}},
                                       .command = Command::kSrun})
                                .spec;
  EXPECT_EQ(srun_task.cpus_per_task(), 2u);
  EXPECT_EQ(srun_task.cpus_per_gpu(), 0u);
  wire::JobSpec cli_task =
      MustParse({.args = {"-G1", "-c2"}, .env = {{"SBATCH_CPUS_PER_GPU", "4"}}}).spec;
  EXPECT_EQ(cli_task.cpus_per_task(), 2u);
  EXPECT_EQ(cli_task.cpus_per_gpu(), 0u);

  EXPECT_EQ(ErrorOf({{"--gpus-per-socket=1"}}),
            "sbatch: error: --gpus-per-socket option requires --sockets-per-node specification");
  EXPECT_TRUE(Parse({{"--gpus-per-socket=1", "--sockets-per-node=2"}}).ok());

  EXPECT_EQ(ErrorOf({{"--mem-per-gpu=4G"}}),
            "sbatch: error: --mem-per-gpu used without a GPU request (--gpus, --gpus-per-node, "
            "--gpus-per-task, --gpus-per-socket or --gres=gpu).\nsbatch: error: Batch job "
            "submission failed: Invalid generic resource (gres) specification");
  EXPECT_TRUE(Parse({{"--mem-per-gpu=4G", "--gres=gpu:a100:1"}}).ok());
  EXPECT_TRUE(Parse({{"--mem-per-gpu=4G", "--gpus-per-node=1"}}).ok());
}

TEST(JobOptionsTest, GresAndGpusTogetherWarn) {
  ParsedJobOptions both = MustParse({{"-n2", "--gres=gpu:2", "--gpus-per-task=1"}});
  ASSERT_EQ(both.warnings.size(), 1u);
  EXPECT_THAT(both.warnings[0], HasSubstr("sbatch: warning: --gres=gpu and --gpus* options"));
  EXPECT_THAT(both.warnings[0], HasSubstr("more GPUs than intended"));
  EXPECT_THAT(MustParse({{"--gres=gpu:2"}}).warnings, IsEmpty());
  EXPECT_THAT(MustParse({{"--gpus=2"}}).warnings, IsEmpty());
  EXPECT_THAT(MustParse({{"--gres=nic:1", "--gpus=2"}}).warnings, IsEmpty());
  // Sources combine before the check.
  EXPECT_THAT(MustParse({.args = {"-G", "1"}, .env = {{"SBATCH_GRES", "gpu:1"}}}).warnings,
              testing::SizeIs(1));
}

TEST(JobOptionsTest, GresAndGpuSpecificationsAreChecked) {
  EXPECT_EQ(SpecOf({"--gres=gpu:a100:2,nic:1"}).gres(), "gpu:a100:2,nic:1");
  EXPECT_EQ(SpecOf({"--gres=gpu:1", "--gres=none"}).gres(), "");
  EXPECT_EQ(ErrorOf({{"--gres=gpu:a:b:c"}}), "sbatch: error: Invalid --gres specification");
  EXPECT_EQ(SpecOf({"--gpus=gpu:a100:2"}).gpus(), "gpu:a100:2");
  EXPECT_EQ(ErrorOf({{"--gpus=a100:"}}), "sbatch: error: Invalid --gpus specification");
  EXPECT_EQ(ErrorOf({{"-G", "many"}}), "sbatch: error: Invalid --gpus specification");
  EXPECT_EQ(ErrorOf({{"--gpus-per-node=:2"}}),
            "sbatch: error: Invalid --gpus-per-node specification");
  EXPECT_EQ(ErrorOf({{"--gpus-per-task=x"}}),
            "sbatch: error: Invalid --gpus-per-task specification");
  EXPECT_EQ(ErrorOf({{"--gres-flags=bind-harder"}}),
            "sbatch: error: Invalid --gres-flags specification");
}

TEST(JobOptionsTest, ArraySpecificationsAreKeptVerbatim) {
  for (std::string spec : {"1-10", "1,3,5-7", "0-15:4", "1-100%5", "7", "0-9:2,20%3"}) {
    EXPECT_EQ(SpecOf({"--array=" + spec}).array(), spec);
  }
  for (std::string bad : {"", "5-1", "1-10%0", "a", "3:2", "1-10:0", "1,,2"}) {
    EXPECT_EQ(ErrorOf({{"--array=" + bad}}), "sbatch: error: Invalid --array specification") << bad;
  }
}

TEST(JobOptionsTest, BeginForms) {
  EXPECT_EQ(SpecOf({"--begin=now"}).begin_time(), kNow);
  EXPECT_EQ(SpecOf({"--begin=now+60"}).begin_time(), kNow + 60);
  EXPECT_EQ(SpecOf({"--begin=now+1hour"}).begin_time(), kNow + 3600);
  EXPECT_EQ(SpecOf({"--begin=now+10minutes"}).begin_time(), kNow + 600);
  EXPECT_EQ(SpecOf({"--begin=now+2days"}).begin_time(), kNow + 2 * 86400);
  EXPECT_EQ(SpecOf({"-b", "16:00"}).begin_time(), Utc(2024, 3, 10, 16));            // Later today.
  EXPECT_EQ(SpecOf({"-b", "09:15:30"}).begin_time(), Utc(2024, 3, 11, 9, 15, 30));  // Tomorrow.
  EXPECT_EQ(SpecOf({"-b", "2024-12-25"}).begin_time(), Utc(2024, 12, 25));
  EXPECT_EQ(SpecOf({"-b", "2024-12-25T08:30"}).begin_time(), Utc(2024, 12, 25, 8, 30));
  EXPECT_EQ(SpecOf({"-b", "2024-12-25T08:30:15"}).begin_time(), Utc(2024, 12, 25, 8, 30, 15));
  EXPECT_EQ(SpecOf({"--begin=midnight"}).begin_time(), Utc(2024, 3, 11));
  EXPECT_EQ(SpecOf({"--begin=teatime"}).begin_time(), Utc(2024, 3, 10, 16));
  EXPECT_EQ(SpecOf({"--begin=noon"}).begin_time(), Utc(2024, 3, 11, 12));
  for (std::string bad : {"soon", "now+1fortnight", "now*2", "25:00", "2024-13-01", "12:61"}) {
    EXPECT_EQ(ErrorOf({{"--begin=" + bad}}), "sbatch: error: Invalid --begin specification") << bad;
  }
}

TEST(JobOptionsTest, DeadlineUsesTheSameTimeForms) {
  EXPECT_EQ(SpecOf({"--deadline=now+1day"}).deadline(), kNow + 86400);
  EXPECT_EQ(ErrorOf({{"--deadline=later"}}), "sbatch: error: Invalid --deadline specification");
}

TEST(ParseEventTimeTest, MoreForms) {
  EXPECT_EQ(*ParseEventTime("now-1hour", kNow), kNow - 3600);
  EXPECT_EQ(*ParseEventTime("NOW+1WEEK", kNow), kNow + 7 * 86400);
  EXPECT_EQ(*ParseEventTime("today", kNow), Utc(2024, 3, 10));
  EXPECT_EQ(*ParseEventTime("tomorrow", kNow), Utc(2024, 3, 11));
  EXPECT_EQ(*ParseEventTime("elevenses", kNow), Utc(2024, 3, 11, 11));
  EXPECT_EQ(*ParseEventTime("fika", kNow), Utc(2024, 3, 10, 15));
  EXPECT_EQ(*ParseEventTime("10:30pm", kNow), Utc(2024, 3, 10, 22, 30));
  EXPECT_EQ(*ParseEventTime("12:00am", kNow), Utc(2024, 3, 11, 0, 0));
  EXPECT_EQ(*ParseEventTime("03/15", kNow), Utc(2024, 3, 15));
  EXPECT_EQ(*ParseEventTime("01/15", kNow), Utc(2025, 1, 15));  // Already past this year.
  EXPECT_EQ(*ParseEventTime("01/15/26", kNow), Utc(2026, 1, 15));
  EXPECT_FALSE(ParseEventTime("13:00pm", kNow).ok());
  EXPECT_FALSE(ParseEventTime("", kNow).ok());
}

TEST(JobOptionsTest, NiceSignalSwitchesAndOpenMode) {
  EXPECT_EQ(SpecOf({"--nice"}).nice(), 100);
  EXPECT_EQ(SpecOf({"--nice=-5"}).nice(), -5);
  EXPECT_EQ(ErrorOf({{"--nice=abc"}}), "sbatch: error: Invalid numeric value \"abc\" for --nice.");
  EXPECT_EQ(ErrorOf({{"--nice=2147483646"}}),
            "sbatch: error: Nice value out of range (+/- 2147483645)");

  for (std::string sig : {"USR1", "SIGTERM", "10@30", "R:INT", "B:USR2@120", "RB:9"}) {
    EXPECT_EQ(SpecOf({"--signal=" + sig}).signal(), sig);
  }
  for (std::string bad : {"FOO", "B:USR1@x", "X:USR1", "99", "USR1@70000"}) {
    EXPECT_EQ(ErrorOf({{"--signal=" + bad}}), "sbatch: error: Invalid --signal specification")
        << bad;
  }

  EXPECT_EQ(SpecOf({"--switches=4"}).switches(), "4");
  EXPECT_EQ(ErrorOf({{"--switches=x@1"}}), "sbatch: error: Invalid --switches specification");
  EXPECT_EQ(ErrorOf({{"--switches=2@soon"}}), "sbatch: error: Invalid --switches specification");

  EXPECT_EQ(SpecOf({"--open-mode=t"}).open_mode(), "truncate");
  EXPECT_EQ(SpecOf({"--open-mode=Append"}).open_mode(), "append");
  EXPECT_EQ(ErrorOf({{"--open-mode=x"}}), "sbatch: error: Invalid --open-mode argument: x.");
}

TEST(JobOptionsTest, ExclusiveModes) {
  EXPECT_TRUE(SpecOf({"--exclusive"}).exclusive());
  ParsedJobOptions user = MustParse({{"--exclusive=user"}});
  EXPECT_TRUE(user.spec.exclusive());
  ASSERT_EQ(user.warnings.size(), 1u);
  EXPECT_THAT(user.warnings[0], HasSubstr("sbatch: warning: --exclusive=user"));
  EXPECT_EQ(ErrorOf({{"--exclusive=maybe"}}), "sbatch: error: Invalid --exclusive specification");
}

TEST(JobOptionsTest, WorkDirDefaultsToCwdAndChdirIsMadeAbsolute) {
  EXPECT_EQ(SpecOf({}).work_dir(), "/home/ada");
  EXPECT_EQ(SpecOf({"-D", "runs/1"}).work_dir(), "/home/ada/runs/1");
  EXPECT_EQ(SpecOf({"--chdir=/tmp"}).work_dir(), "/tmp");
}

std::vector<std::string> EnvOf(const Call& call) {
  ParsedJobOptions p = MustParse(call);
  return {p.spec.environment().begin(), p.spec.environment().end()};
}

TEST(JobOptionsTest, ExportControlsTheJobEnvironment) {
  const Environment env = {
      {"HOME", "/home/ada"}, {"PATH", "/bin"}, {"SLURM_CONF", "/etc/s.conf"}, {"EDITOR", "vi"}};
  EXPECT_THAT(EnvOf({.args = {}, .env = env}),
              ElementsAre("EDITOR=vi", "HOME=/home/ada", "PATH=/bin", "SLURM_CONF=/etc/s.conf"));
  EXPECT_THAT(EnvOf({.args = {"--export=ALL"}, .env = env}), testing::SizeIs(4));
  EXPECT_THAT(EnvOf({.args = {"--export=NONE"}, .env = env}),
              ElementsAre("SLURM_CONF=/etc/s.conf"));
  EXPECT_THAT(EnvOf({.args = {"--export=PATH,FOO=bar,MISSING"}, .env = env}),
              ElementsAre("FOO=bar", "PATH=/bin", "SLURM_CONF=/etc/s.conf"));
  EXPECT_THAT(EnvOf({.args = {"--export=ALL,EDITOR=emacs"}, .env = env}),
              ElementsAre("EDITOR=emacs", "HOME=/home/ada", "PATH=/bin", "SLURM_CONF=/etc/s.conf"));
  EXPECT_EQ(MustParse({.args = {"--export=PATH"}, .env = env}).spec.export_env(), "PATH");
  EXPECT_EQ(ErrorOf({{"--export==x"}}), "sbatch: error: Invalid --export specification");
}

TEST(JobOptionsTest, SbatchEnvironmentVariables) {
  ParsedJobOptions p =
      MustParse({.args = {},
                 .env = {
                     {"SBATCH_ACCOUNT", "acct"},     {"SBATCH_ARRAY_INX", "1-5"},
                     {"SBATCH_CONSTRAINT", "ib"},    {"SBATCH_CPUS_PER_GPU", "4"},
                     {"SBATCH_DEBUG", "3"},  // Not an option: ignored.
                     {"SBATCH_EXCLUSIVE", "1"},      {"SBATCH_EXPORT", "NONE"},
                     {"SBATCH_GPU_BIND", "closest"}, {"SBATCH_GPUS", "4"},
                     {"SBATCH_GPUS_PER_NODE", "2"},  {"SBATCH_GPUS_PER_TASK", "1"},
                     {"SBATCH_JOB_NAME", "envjob"},  {"SBATCH_MEM_PER_CPU", "1G"},
                     {"SBATCH_OPEN_MODE", "append"}, {"SBATCH_PARTITION", "part"},
                     {"SBATCH_QOS", "qos"},          {"SBATCH_REQUEUE", ""},
                     {"SBATCH_RESERVATION", "resv"}, {"SBATCH_TIMELIMIT", "1:00:00"},
                     {"SBATCH_WAIT", "1"},           {"SBATCH_REQ_SWITCH", "2"},
                     {"SBATCH_WAIT4SWITCH", "5:00"}, {"SBATCH_GPU_FREQ", "low"},
                 }});
  const wire::JobSpec& s = p.spec;
  EXPECT_EQ(s.account(), "acct");
  EXPECT_EQ(s.array(), "1-5");
  EXPECT_EQ(s.constraint(), "ib");
  EXPECT_EQ(s.cpus_per_gpu(), 4u);
  EXPECT_TRUE(s.exclusive());
  EXPECT_EQ(s.export_env(), "NONE");
  EXPECT_EQ(s.gpu_bind(), "closest");
  EXPECT_EQ(s.gpus(), "4");
  EXPECT_EQ(s.gpus_per_node(), "2");
  EXPECT_EQ(s.gpus_per_task(), "1");
  EXPECT_EQ(s.gpu_freq(), "low");
  EXPECT_EQ(s.name(), "envjob");
  EXPECT_EQ(s.mem_per_cpu_mb(), 1024u);
  EXPECT_EQ(s.open_mode(), "append");
  EXPECT_EQ(s.partition(), "part");
  EXPECT_EQ(s.qos(), "qos");
  EXPECT_EQ(s.requeue(), 1);
  EXPECT_EQ(s.reservation(), "resv");
  EXPECT_EQ(s.time_limit_s(), 3600);
  EXPECT_EQ(s.switches(), "2@5:00");
  EXPECT_TRUE(p.wait);
  EXPECT_THAT(p.warnings, IsEmpty());
}

TEST(JobOptionsTest, FlagVariablesSetToNoAreIgnored) {
  ParsedJobOptions p = MustParse(
      {.args = {}, .env = {{"SBATCH_WAIT", "0"}, {"SBATCH_EXCLUSIVE", "no"}, {"SBATCH_GRES", ""}}});
  EXPECT_FALSE(p.wait);
  EXPECT_FALSE(p.spec.exclusive());
  EXPECT_EQ(p.spec.gres(), "");
  EXPECT_EQ(MustParse({.args = {}, .env = {{"SBATCH_NO_REQUEUE", "yes"}}}).spec.requeue(), 2);
}

TEST(JobOptionsTest, BadEnvironmentValueNamesTheVariable) {
  EXPECT_EQ(ErrorOf({.args = {}, .env = {{"SBATCH_TIMELIMIT", "soon"}}}),
            "sbatch: error: Invalid --time specification\n"
            "sbatch: error: (from environment variable SBATCH_TIMELIMIT=\"soon\")");
}

TEST(JobOptionsTest, SrunAndSallocReadTheirOwnVariables) {
  const Environment env = {{"SBATCH_PARTITION", "sb"},
                           {"SLURM_PARTITION", "sl"},
                           {"SALLOC_PARTITION", "sa"},
                           {"SLURM_EXPORT_ENV", "NONE"}};
  EXPECT_EQ(MustParse({.args = {}, .env = env}).spec.partition(), "sb");
  ParsedJobOptions srun = MustParse({.args = {}, .env = env, .command = Command::kSrun});
  EXPECT_EQ(srun.spec.partition(), "sl");
  EXPECT_EQ(srun.spec.export_env(), "NONE");
  EXPECT_EQ(MustParse({.args = {}, .env = env, .command = Command::kSalloc}).spec.partition(),
            "sa");
}

TEST(JobOptionsTest, DirectivesAreParsedLineByLine) {
  ParsedJobOptions p =
      MustParse({.args = {}, .directives = {{2, {"-N", "2"}}, {3, {"-n8", "--exclusive"}}}});
  EXPECT_EQ(p.spec.min_nodes(), 2u);
  EXPECT_EQ(p.spec.num_tasks(), 8u);
  EXPECT_TRUE(p.spec.exclusive());
  EXPECT_THAT(p.positional, IsEmpty());
}

TEST(JobOptionsTest, DirectiveErrorsSayWhichLine) {
  EXPECT_EQ(ErrorOf({.args = {}, .directives = {{4, {"--frob"}}}}),
            "sbatch: unrecognized option '--frob'\n"
            "Try \"sbatch --help\" for more information\n"
            "sbatch: error: (in the #SBATCH directive on line 4)");
  EXPECT_EQ(ErrorOf({.args = {}, .directives = {{7, {"-N", "2", "extra"}}}}),
            "sbatch: error: Invalid directive found in batch script: extra\n"
            "sbatch: error: (in the #SBATCH directive on line 7)");
}

// srun outside an allocation parses its command line for the allocation too:
// the step's own options pass through without changing the request.
TEST(JobOptionsTest, SrunStepOptionsPassThroughForTheAllocation) {
  ParsedJobOptions srun = MustParse({.args = {"-l", "-K", "-W", "5", "--mpi=none", "--overlap",
                                              "-u", "-n2", "-o", "out-%t", "hostname"},
                                     .command = Command::kSrun});
  EXPECT_EQ(srun.spec.num_tasks(), 2u);
  EXPECT_FALSE(srun.wait);
  EXPECT_EQ(srun.positional, (std::vector<std::string>{"hostname"}));
  EXPECT_NE(ErrorOf({.args = {"-l", "x"}, .command = Command::kSbatch}), "");
}

TEST(JobOptionsTest, SallocNoShell) {
  EXPECT_TRUE(MustParse({.args = {"--no-shell", "-N1"}, .command = Command::kSalloc}).no_shell);
  EXPECT_FALSE(MustParse({.args = {"-N1"}, .command = Command::kSalloc}).no_shell);
  EXPECT_NE(ErrorOf({.args = {"--no-shell"}, .command = Command::kSbatch}), "");
}

TEST(JobOptionsTest, MailTypeAndUser) {
  ParsedJobOptions p =
      MustParse({.args = {"--mail-type=BEGIN,end", "--mail-user=ada@example.org"}});
  EXPECT_EQ(p.spec.mail_type(), 3u);  // BEGIN | END
  EXPECT_EQ(p.spec.mail_user(), "ada@example.org");
  ParsedJobOptions env = MustParse(
      {.args = {}, .env = {{"SLURM_MAIL_TYPE", "TIME_LIMIT_90"}}, .command = Command::kSrun});
  EXPECT_EQ(env.spec.mail_type(), 1u << 5);
  EXPECT_EQ(MustParse({.args = {}, .env = {{"SBATCH_MAIL_USER", "bob"}}}).spec.mail_user(), "bob");
  EXPECT_EQ(ErrorOf({.args = {"--mail-type=SOMETIMES"}}),
            "sbatch: error: --mail-type=SOMETIMES invalid");
}

TEST(JobOptionsTest, TableHasUniqueNamesAndLettersPerCommand) {
  for (Command command : {Command::kSbatch, Command::kSrun, Command::kSalloc}) {
    std::set<std::string_view> names;
    std::set<char> letters;
    for (const JobOption& option : JobOptionTable()) {
      if (!(option.commands & CommandBit(command))) continue;
      EXPECT_TRUE(names.insert(option.name).second) << option.name;
      if (option.short_name != 0) {
        EXPECT_TRUE(letters.insert(option.short_name).second) << option.short_name;
      }
    }
  }
}

TEST(EnvironmentFromEnvpTest, SplitsAtTheFirstEquals) {
  const char* envp[] = {"A=1", "B=x=y", "junk", "=bad", nullptr};
  Environment env = EnvironmentFromEnvp(envp);
  EXPECT_EQ(env.size(), 2u);
  EXPECT_EQ(env["A"], "1");
  EXPECT_EQ(env["B"], "x=y");
}

}  // namespace
}  // namespace rota::cli
