// The options of sbatch, srun and salloc that job scripts and workflow tools
// write beyond the core request (docs/options.md): each is taken into the
// spec, checked, or refused with the option named.

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>

#include "cli/submit/job_options.h"
#include "common/strings.h"
#include "testing/option_doc_cells.h"
#include "testing/temp_dir.h"

namespace rota::cli {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

Result<ParsedJobOptions> Parse(std::vector<std::string> args, Command command = Command::kSbatch,
                               Environment env = {}) {
  JobOptionsContext context{std::move(env), "/home/ada", 1'700'000'000};
  return ParseJobOptions(command, {std::move(args), {}}, context);
}

ParsedJobOptions MustParse(std::vector<std::string> args, Command command = Command::kSbatch,
                           Environment env = {}) {
  Result<ParsedJobOptions> parsed = Parse(std::move(args), command, std::move(env));
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  return parsed.ok() ? std::move(parsed).value() : ParsedJobOptions{};
}

std::string ErrorOf(std::vector<std::string> args, Command command = Command::kSbatch) {
  Result<ParsedJobOptions> parsed = Parse(std::move(args), command);
  EXPECT_FALSE(parsed.ok());
  return parsed.ok() ? "" : parsed.status().message();
}

TEST(JobOptionSurfaceTest, WckeyFromTheLineAndFromEachCommandsVariable) {
  EXPECT_EQ(MustParse({"--wckey=submitit"}).spec.wckey(), "submitit");
  EXPECT_EQ(MustParse({}, Command::kSbatch, {{"SBATCH_WCKEY", "a"}}).spec.wckey(), "a");
  EXPECT_EQ(MustParse({}, Command::kSalloc, {{"SALLOC_WCKEY", "b"}}).spec.wckey(), "b");
  EXPECT_EQ(MustParse({"true"}, Command::kSrun, {{"SLURM_WCKEY", "c"}}).spec.wckey(), "c");
  // The command line wins over the variable.
  EXPECT_EQ(MustParse({"--wckey=d"}, Command::kSbatch, {{"SBATCH_WCKEY", "a"}}).spec.wckey(), "d");
}

TEST(JobOptionSurfaceTest, TasksPerNodeIsNtasksPerNode) {
  EXPECT_EQ(MustParse({"--tasks-per-node=4"}).spec.ntasks_per_node(), 4u);
  EXPECT_THAT(ErrorOf({"--tasks-per-node=x"}), HasSubstr("Invalid numeric value \"x\""));
}

TEST(JobOptionSurfaceTest, PriorityTakesANumberOrTop) {
  wire::JobSpec spec = MustParse({"--priority=500"}).spec;
  ASSERT_TRUE(spec.has_requested_priority());
  EXPECT_EQ(spec.requested_priority(), 500u);
  EXPECT_EQ(MustParse({"--priority=top"}).spec.requested_priority(), 0xfffffffdu);
  EXPECT_TRUE(MustParse({"--priority=0"}).spec.has_requested_priority());
  EXPECT_FALSE(MustParse({}).spec.has_requested_priority());
  EXPECT_EQ(ErrorOf({"--priority=high"}),
            "sbatch: error: Invalid numeric value \"high\" for --priority.");
}

TEST(JobOptionSurfaceTest, HintIsCheckedAndDroppedBesideTheLayoutOptions) {
  EXPECT_EQ(MustParse({"--hint=nomultithread"}).spec.hint(), "nomultithread");
  EXPECT_THAT(ErrorOf({"--hint=fast"}), HasSubstr("unrecognized --hint argument \"fast\""));
  ParsedJobOptions both = MustParse({"--hint=compute_bound", "--threads-per-core=1"});
  EXPECT_EQ(both.spec.hint(), "");
  EXPECT_EQ(both.spec.threads_per_core(), 1u);
  EXPECT_THAT(both.warnings, Contains(HasSubstr("mutually exclusive with --hint")));
  EXPECT_EQ(MustParse({"--hint=multithread", "-B", "2"}).spec.hint(), "");
  EXPECT_EQ(MustParse({"--hint=multithread", "--cpu-bind=verbose"}).spec.hint(), "multithread");
}

TEST(JobOptionSurfaceTest, ExtraNodeInfoSetsSocketsCoresAndThreads) {
  wire::JobSpec spec = MustParse({"-B", "2:8:1"}).spec;
  EXPECT_EQ(spec.sockets_per_node(), 2u);
  EXPECT_EQ(spec.cores_per_socket(), 8u);
  EXPECT_EQ(spec.threads_per_core(), 1u);
  spec = MustParse({"--extra-node-info=*:*:2"}).spec;
  EXPECT_EQ(spec.sockets_per_node(), 0u);
  EXPECT_EQ(spec.cores_per_socket(), 0u);
  EXPECT_EQ(spec.threads_per_core(), 2u);
  EXPECT_EQ(ErrorOf({"-B", "2:x"}), "sbatch: error: Invalid --extra-node-info specification");
  EXPECT_EQ(ErrorOf({"-B", "1:2:3:4"}), "sbatch: error: Invalid --extra-node-info specification");
  spec = MustParse({"--cores-per-socket=4", "--ntasks-per-core=1", "--mincpus=16"}).spec;
  EXPECT_EQ(spec.cores_per_socket(), 4u);
  EXPECT_EQ(spec.ntasks_per_core(), 1u);
  EXPECT_EQ(spec.min_cpus_per_node(), 16u);
}

TEST(JobOptionSurfaceTest, DistributionMemBindAndAcctgFreqAreCheckedAndKept) {
  EXPECT_EQ(MustParse({"-m", "cyclic"}).spec.distribution(), "cyclic");
  EXPECT_EQ(MustParse({"--distribution=block:fcyclic,Pack"}).spec.distribution(),
            "block:fcyclic,Pack");
  EXPECT_EQ(MustParse({"-m", "plane=4"}).spec.distribution(), "plane=4");
  EXPECT_EQ(MustParse({"-m", "arbitrary"}).spec.distribution(), "arbitrary");
  EXPECT_EQ(ErrorOf({"-m", "spiral"}), "sbatch: error: Invalid --distribution specification");
  EXPECT_EQ(ErrorOf({"-m", "plane=0"}), "sbatch: error: Invalid --distribution specification");
  EXPECT_EQ(ErrorOf({"-m", "block:block:block:block"}),
            "sbatch: error: Invalid --distribution specification");

  EXPECT_EQ(MustParse({"--mem-bind=verbose,local"}).spec.mem_bind(), "verbose,local");
  EXPECT_EQ(MustParse({"--mem-bind=map_mem:0,1"}).spec.mem_bind(), "map_mem:0,1");
  EXPECT_EQ(ErrorOf({"--mem-bind=everywhere"}), "sbatch: error: Invalid --mem-bind specification");

  EXPECT_EQ(MustParse({"--acctg-freq=task=30,energy=0"}).spec.acctg_freq(), "task=30,energy=0");
  EXPECT_EQ(MustParse({"--acctg-freq=10"}).spec.acctg_freq(), "10");
  EXPECT_EQ(ErrorOf({"--acctg-freq=disk=3"}), "sbatch: error: Invalid --acctg-freq specification");
}

TEST(JobOptionSurfaceTest, TmpTakesASize) {
  EXPECT_EQ(MustParse({"--tmp=10G"}).spec.tmp_disk_mb(), 10240u);
  EXPECT_EQ(MustParse({"--tmp=500"}).spec.tmp_disk_mb(), 500u);
  EXPECT_EQ(ErrorOf({"--tmp=lots"}), "sbatch: error: Invalid --tmp specification");
}

TEST(JobOptionSurfaceTest, FlagsAndTheirOffForms) {
  wire::JobSpec spec = MustParse({"-k", "-s", "--spread-job", "--use-min-nodes", "--reboot",
                                  "--kill-on-invalid-dep=yes", "--delay-boot=10"})
                           .spec;
  EXPECT_TRUE(spec.no_kill());
  EXPECT_TRUE(spec.oversubscribe());
  EXPECT_TRUE(spec.spread_job());
  EXPECT_TRUE(spec.use_min_nodes());
  EXPECT_TRUE(spec.reboot());
  EXPECT_EQ(spec.kill_on_invalid_dep(), 1);
  EXPECT_FALSE(MustParse({"-k", "--no-kill=off"}).spec.no_kill());
  EXPECT_EQ(MustParse({"--kill-on-invalid-dep=no"}).spec.kill_on_invalid_dep(), 2);
  EXPECT_EQ(ErrorOf({"--kill-on-invalid-dep=maybe"}),
            "sbatch: error: Invalid --kill-on-invalid-dep specification");
  EXPECT_EQ(ErrorOf({"--no-kill=on"}), "sbatch: error: Invalid --no-kill specification");
  EXPECT_EQ(ErrorOf({"--delay-boot=soon"}), "sbatch: error: Invalid --delay-boot specification");
  EXPECT_TRUE(Parse({"--get-user-env=10L"}).ok());
  EXPECT_EQ(ErrorOf({"--get-user-env=x"}), "sbatch: error: Invalid --get-user-env specification");
  // srun has no --kill-on-invalid-dep; Slurm's getopt wording says so.
  EXPECT_THAT(ErrorOf({"--kill-on-invalid-dep=yes", "true"}, Command::kSrun),
              HasSubstr("unrecognized option '--kill-on-invalid-dep=yes'"));
  EXPECT_TRUE(Parse({"--exact", "true"}, Command::kSrun).ok());
}

TEST(JobOptionSurfaceTest, BurstBuffersAndOtherUsersAreRefusedWithTheOptionNamed) {
  EXPECT_EQ(ErrorOf({"--bb=capacity=1G"}),
            "sbatch: error: --bb: burst buffers are not configured on this cluster\n"
            "sbatch: error: Batch job submission failed: Burst Buffer request invalid");
  EXPECT_THAT(ErrorOf({"--bbf=/tmp/bb"}, Command::kSalloc),
              HasSubstr("salloc: error: Job submit/allocate failed: Burst Buffer request invalid"));
  const std::string uid = ErrorOf({"--uid=alice"});
  if (getuid() == 0) {
    EXPECT_THAT(uid, HasSubstr("sbatch: error: --uid is not supported"));
  } else {
    EXPECT_EQ(uid, "sbatch: error: --uid only permitted by root user");
  }
  EXPECT_THAT(ErrorOf({"--gid=0"}), HasSubstr("--gid"));
}

TEST(JobOptionSurfaceTest, PropagateReplacesTheClustersChoice) {
  EXPECT_FALSE(MustParse({}).propagate.has_value());
  EXPECT_THAT(*MustParse({"--propagate"}).propagate, ElementsAre("ALL"));
  EXPECT_THAT(*MustParse({"--propagate=nofile,Stack"}).propagate, ElementsAre("NOFILE", "STACK"));
  EXPECT_THAT(*MustParse({"--propagate=NONE"}).propagate, ElementsAre("NONE"));
  EXPECT_EQ(ErrorOf({"--propagate=HEAP"}), "sbatch: error: Invalid --propagate specification");
  EXPECT_FALSE(Parse({"--propagate=NOFILE", "true"}, Command::kSalloc).ok());
}

TEST(JobOptionSurfaceTest, ExportFileAddsItsEntriesFromAFileOrADescriptor) {
  testing::TempDir dir;
  const std::string path = dir.path().string() + "/vars";
  {
    std::ofstream out(path);
    out << "ALPHA=1\nBETA=two words\n";
  }
  ParsedJobOptions parsed = MustParse({"--export=NONE", "--export-file=" + path});
  EXPECT_THAT(parsed.spec.environment(), Contains("ALPHA=1"));
  EXPECT_THAT(parsed.spec.environment(), Contains("BETA=two words"));

  // NUL-separated, through an open descriptor; an entry replaces the
  // variable --export passed.
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const std::string nul_separated("GAMMA=3\0HOME=/elsewhere\0", 24);
  ASSERT_EQ(write(fds[1], nul_separated.data(), nul_separated.size()),
            static_cast<ssize_t>(nul_separated.size()));
  close(fds[1]);
  parsed = MustParse({"--export-file=" + std::to_string(fds[0])}, Command::kSbatch,
                     {{"HOME", "/home/ada"}});
  close(fds[0]);
  EXPECT_THAT(parsed.spec.environment(), Contains("GAMMA=3"));
  EXPECT_THAT(parsed.spec.environment(), Contains("HOME=/elsewhere"));
  EXPECT_THAT(parsed.spec.environment(), ::testing::Not(Contains("HOME=/home/ada")));

  EXPECT_THAT(ErrorOf({"--export-file=" + dir.path().string() + "/missing"}),
              HasSubstr("sbatch: error: --export-file: cannot open"));
  {
    std::ofstream out(path);
    out << "JUSTANAME\n";
  }
  EXPECT_EQ(ErrorOf({"--export-file=" + path}),
            "sbatch: error: --export-file: not NAME=value: JUSTANAME");
}

TEST(JobOptionSurfaceTest, EveryNewOptionIsInTheTable) {
  std::vector<std::string> names;
  for (const JobOption& option : JobOptionTable()) names.emplace_back(option.name);
  for (const char* name : {"wckey",
                           "tasks-per-node",
                           "priority",
                           "hint",
                           "mem-bind",
                           "distribution",
                           "acctg-freq",
                           "spread-job",
                           "use-min-nodes",
                           "threads-per-core",
                           "cores-per-socket",
                           "extra-node-info",
                           "ntasks-per-core",
                           "mincpus",
                           "tmp",
                           "kill-on-invalid-dep",
                           "no-kill",
                           "oversubscribe",
                           "reboot",
                           "delay-boot",
                           "get-user-env",
                           "uid",
                           "gid",
                           "bb",
                           "bbf",
                           "propagate",
                           "export-file",
                           "exact"}) {
    EXPECT_THAT(names, Contains(name));
  }
  EXPECT_THAT(MustParse({}).warnings, IsEmpty());
}

TEST(JobOptionSurfaceTest, ImmediateNodeFileAndTheRefusedOnes) {
  EXPECT_EQ(MustParse({"-I", "true"}, Command::kSalloc).immediate_s, 0u);
  EXPECT_EQ(MustParse({"--immediate=30", "true"}, Command::kSrun).immediate_s, 30u);
  EXPECT_FALSE(MustParse({"true"}, Command::kSalloc).immediate_s.has_value());
  EXPECT_EQ(MustParse({}, Command::kSalloc, {{"SALLOC_IMMEDIATE", "5"}}).immediate_s, 5u);
  EXPECT_THAT(ErrorOf({"--immediate=soon"}, Command::kSalloc),
              HasSubstr("Invalid numeric value \"soon\" for --immediate."));
  EXPECT_THAT(ErrorOf({"--immediate"}), HasSubstr("unrecognized option '--immediate'"));

  testing::TempDir dir;
  const std::string path = dir.path().string() + "/nodes";
  {
    std::ofstream out(path);
    out << "n1 n2,gpu[1-2]\nn7\n";
  }
  EXPECT_EQ(MustParse({"-F", path}).spec.nodelist(), "n1,n2,gpu[1-2],n7");
  EXPECT_THAT(ErrorOf({"--nodefile=" + path + ".missing"}), HasSubstr("--nodefile: cannot open"));

  EXPECT_TRUE(Parse({"--ignore-pbs", "--cpu-freq=high", "--profile=task,energy",
                     "--wait-all-nodes=1", "--network=sn_all", "--power=level"})
                  .ok());
  EXPECT_EQ(ErrorOf({"--profile=everything"}), "sbatch: error: Invalid --profile specification");
  EXPECT_EQ(ErrorOf({"--wait-all-nodes=2"}),
            "sbatch: error: Invalid --wait-all-nodes specification");
  EXPECT_EQ(ErrorOf({"-S", "2"}),
            "sbatch: error: --core-spec: core specialization is not supported (no cores are kept "
            "for the system)");
  EXPECT_THAT(ErrorOf({"--container-mounts=/a:b", "true"}, Command::kSrun),
              HasSubstr("srun: error: --container-mounts: mount '/a:b': its destination must "
                        "start with / (or .)"));
  EXPECT_THAT(ErrorOf({"--mcs-label=x"}), HasSubstr("MCS labels are not supported"));
}

// docs/options.md's shared table, as rows of (option names, commands).
struct DocRow {
  std::vector<std::string> long_names;
  std::vector<char> letters;
  CommandSet commands = 0;
};

std::vector<DocRow> SharedTableOfTheDocs() {
  std::ifstream in(std::string(ROTA_SOURCE_DIR) + "/docs/options.md");
  std::vector<DocRow> rows;
  std::string line;
  bool in_section = false;
  while (std::getline(in, line)) {
    if (line.starts_with("## ")) {
      in_section = line == "## sbatch, srun, salloc: the shared option table";
      continue;
    }
    if (!in_section || !line.starts_with("| `")) continue;
    std::vector<std::string_view> cells = Split(line, '|');  // "", option, commands, ...
    if (cells.size() < 4) continue;
    DocRow row;
    testing::OptionNames names = testing::OptionNamesOfCell(cells[1]);
    row.long_names = std::move(names.long_names);
    row.letters = std::move(names.letters);
    const std::string_view commands = Trim(cells[2]);
    if (commands == "all three") {
      row.commands =
          CommandBit(Command::kSbatch) | CommandBit(Command::kSrun) | CommandBit(Command::kSalloc);
    } else {
      for (std::string_view c : Split(commands, ',')) {
        c = Trim(c);
        row.commands |= c == "sbatch"   ? CommandBit(Command::kSbatch)
                        : c == "srun"   ? CommandBit(Command::kSrun)
                        : c == "salloc" ? CommandBit(Command::kSalloc)
                                        : 0;
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// Every option of the table in the code has its row in docs/options.md, with
// its letter and the same commands, and every row there is an option here.
TEST(JobOptionSurfaceTest, TheDocsTableMatchesTheCode) {
  const std::vector<DocRow> rows = SharedTableOfTheDocs();
  ASSERT_GT(rows.size(), 50u) << "the shared table was not found in docs/options.md";
  std::map<std::string, CommandSet> code_commands;
  std::map<std::string, CommandSet> doc_commands;
  for (const JobOption& option : JobOptionTable()) {
    code_commands[std::string(option.name)] |= option.commands;
  }
  for (const DocRow& row : rows) {
    for (const std::string& name : row.long_names) doc_commands[name] |= row.commands;
  }
  for (const auto& [name, commands] : code_commands) {
    auto it = doc_commands.find(name);
    if (it == doc_commands.end()) {
      ADD_FAILURE() << "--" << name << " has no row in docs/options.md";
      continue;
    }
    EXPECT_EQ(static_cast<int>(it->second), static_cast<int>(commands))
        << "--" << name << ": the commands in docs/options.md differ from the code's";
  }
  for (const auto& [name, commands] : doc_commands) {
    EXPECT_TRUE(code_commands.contains(name))
        << "docs/options.md lists --" << name << ", which the commands do not take";
  }
  for (const JobOption& option : JobOptionTable()) {
    if (option.short_name == 0) continue;
    const bool documented = std::any_of(rows.begin(), rows.end(), [&](const DocRow& row) {
      return std::find(row.letters.begin(), row.letters.end(), option.short_name) !=
                 row.letters.end() &&
             std::find(row.long_names.begin(), row.long_names.end(), option.name) !=
                 row.long_names.end();
    });
    EXPECT_TRUE(documented) << "-" << option.short_name << " is not on --" << option.name
                            << "'s row in docs/options.md";
  }
}

}  // namespace
}  // namespace rota::cli
