#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "cli/step/srun_options.h"
#include "cli/step/srun_plan.h"
#include "cli/step/step_commands.h"
#include "cli/step/task_output.h"

namespace rota::cli {
namespace {

TEST(TaskOutputTest, LabelsWholeLinesOnly) {
  TaskOutput out(true, 12);
  EXPECT_EQ(out.Add(3, 1, "hel"), "");
  EXPECT_EQ(out.Add(3, 1, "lo\nwor"), " 3: hello\n");
  EXPECT_EQ(out.Add(10, 1, "x\ny\n"), "10: x\n10: y\n");
  EXPECT_EQ(out.Flush(3, 1), " 3: wor\n");
  EXPECT_EQ(out.Flush(3, 1), "");
}

TEST(TaskOutputTest, WithoutLabelPassesBytesThrough) {
  TaskOutput out(false, 2);
  EXPECT_EQ(out.Add(0, 1, "a"), "a");
  EXPECT_EQ(out.Flush(0, 1), "");
}

TEST(SrunOptionsTest, CommandLineAfterOptions) {
  Result<SrunOptions> o = ParseSrunOptions(
      {"-n", "4", "-l", "--gpus-per-task=1", "--gpu-bind=closest", "hostname", "-n", "x"}, {});
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->num_tasks, 4u);
  EXPECT_TRUE(o->label);
  EXPECT_EQ(o->gpus_per_task, 1u);
  EXPECT_EQ(o->gpu_bind, "closest");
  EXPECT_EQ(o->command, (std::vector<std::string>{"hostname", "-n", "x"}));
}

// pyxis' options make the step's container; without them srun takes
// salloc's from the allocation's spank variables.
TEST(SrunOptionsTest, ContainerFromTheCommandLineOrTheAllocation) {
  Environment env{{"SLURM_JOB_ID", "42"},
                  {"SLURM_SPANK__SLURM_SPANK_OPTION_pyxis_container_image", "/i/alloc.sqsh"}};
  Result<SrunOptions> o = ParseSrunOptions(
      {"--container-image=/i/own.sqsh", "--container-workdir=/w", "cat", "/etc/os-release"}, env);
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->container.image(), "/i/own.sqsh");
  EXPECT_EQ(o->container.workdir(), "/w");
  EXPECT_EQ(o->command, (std::vector<std::string>{"cat", "/etc/os-release"}));
  o = ParseSrunOptions({"true"}, env);
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->container.image(), "/i/alloc.sqsh");
  o = ParseSrunOptions({"--container-save=/i/x.sqsh", "true"}, {});
  ASSERT_FALSE(o.ok());
  EXPECT_THAT(o.status().message(), ::testing::HasSubstr("--container-save needs"));
}

TEST(SrunOptionsTest, EnvironmentGivesDefaults) {
  Environment env{{"SLURM_JOB_ID", "42"},
                  {"SLURM_NTASKS", "4"},
                  {"SLURM_NNODES", "2"},
                  {"SLURM_GPUS_PER_TASK", "a100:1"}};
  Result<SrunOptions> o = ParseSrunOptions({"true"}, env);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->job_id, 42u);
  EXPECT_EQ(o->num_tasks, 4u);
  EXPECT_EQ(o->num_nodes, 2u);
  EXPECT_EQ(o->gpus_per_task, 1u);
  // -n alone takes as many nodes as it needs, not the allocation's count.
  o = ParseSrunOptions({"-n1", "true"}, env);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->num_tasks, 1u);
  EXPECT_EQ(o->num_nodes, 0u);
  o = ParseSrunOptions({"-N", "1-2", "--ntasks-per-node=3", "true"}, env);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->num_nodes, 1u);
  EXPECT_EQ(o->ntasks_per_node, 3u);
}

// A batch job's environment (sbatch -n2 --gpus-per-task=1 --gpu-bind=closest)
// makes its sruns ask the same; the command line still wins.
TEST(SrunOptionsTest, TheJobsGpuVariablesAreTheStepsDefaults) {
  Environment env{{"SLURM_JOB_ID", "42"},
                  {"SLURM_NTASKS", "2"},
                  {"SLURM_GPU_BIND", "closest"},
                  {"SLURM_GPUS_PER_TASK", "1"},
                  {"SLURM_GPUS_PER_NODE", "a100:2"},
                  {"SLURM_GPUS", "4"}};
  Result<SrunOptions> o = ParseSrunOptions({"true"}, env);
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->num_tasks, 2u);
  EXPECT_EQ(o->gpu_bind, "closest");
  EXPECT_EQ(o->gpus_per_task, 1u);
  EXPECT_EQ(o->gpus_per_node, 2u);
  EXPECT_EQ(o->gpus, 4u);

  o = ParseSrunOptions({"--gpu-bind=none", "-n1", "true"}, env);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->gpu_bind, "none");
  EXPECT_EQ(o->num_tasks, 1u);
  EXPECT_EQ(o->gpus_per_task, 1u);  // Not a GPU option: the job's GPU request stays.

  // A GPU request of the step's own replaces the job's, whatever its form.
  o = ParseSrunOptions({"--gres=gpu:1", "true"}, env);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->gpus_per_node, 1u);
  EXPECT_EQ(o->gpus_per_task, 0u);
  EXPECT_EQ(o->gpus, 0u);
  o = ParseSrunOptions({"-G", "1", "true"}, env);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->gpus, 1u);
  EXPECT_EQ(o->gpus_per_task, 0u);
  EXPECT_EQ(o->gpus_per_node, 0u);
  o = ParseSrunOptions({"--gpus-per-node=a100:1", "--gpus-per-task=2", "true"}, env);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->gpus_per_node, 1u);
  EXPECT_EQ(o->gpus_per_task, 2u);
  EXPECT_EQ(o->gpus, 0u);
  // A GRES that is no GPU leaves it alone.
  o = ParseSrunOptions({"--gres=nic:1", "true"}, env);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->gpus_per_task, 1u);
  EXPECT_EQ(o->gpus_per_node, 2u);

  // What the job was not given stays unset for the step.
  o = ParseSrunOptions({"true"}, {{"SLURM_JOB_ID", "42"}});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->gpu_bind, "");
  EXPECT_EQ(o->gpus_per_task, 0u);
  EXPECT_EQ(o->gpus_per_node, 0u);
  EXPECT_EQ(o->gpus, 0u);
  // --gpu-freq and the other allocation options are let through.
  EXPECT_TRUE(ParseSrunOptions({"--gpu-freq=high", "--cpus-per-gpu=2", "true"}, env).ok());
}

TEST(SrunOptionsTest, RefusesBadValues) {
  Result<SrunOptions> o = ParseSrunOptions({"-n", "zero", "true"}, {});
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.status().message().find("srun: error: Invalid numeric value"), std::string::npos);
  EXPECT_FALSE(ParseSrunOptions({"--bogus", "true"}, {}).ok());
  EXPECT_FALSE(ParseSrunOptions({"--mpi=lam", "true"}, {}).ok());
}

}  // namespace
}  // namespace rota::cli

namespace rota::cli {
namespace {

TEST(SrunOptionsTest, IoModes) {
  Result<SrunOptions> o = ParseSrunOptions({"-o", "out-%t.txt", "-i", "none", "cmd"}, {});
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->output.kind, StepIoOption::kFile);
  EXPECT_EQ(o->output.pattern, "out-%t.txt");
  // Without -e, stderr goes where stdout goes.
  EXPECT_EQ(o->error.kind, StepIoOption::kFile);
  EXPECT_EQ(o->error.pattern, "out-%t.txt");
  EXPECT_EQ(o->input.kind, StepIoOption::kNone);

  o = ParseSrunOptions({"--output=2", "--error=none", "--input=all", "cmd"}, {});
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->output.kind, StepIoOption::kOneTask);
  EXPECT_EQ(o->output.task, 2u);
  EXPECT_EQ(o->error.kind, StepIoOption::kNone);
  EXPECT_EQ(o->input.kind, StepIoOption::kAll);

  // Defaults: output to srun, stdin to task 0.
  o = ParseSrunOptions({"cmd"}, {});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->output.kind, StepIoOption::kStream);
  EXPECT_EQ(o->error.kind, StepIoOption::kStream);
  EXPECT_EQ(o->input.kind, StepIoOption::kStream);
  EXPECT_EQ(o->input.task, 0u);
  EXPECT_FALSE(o->append);

  o = ParseSrunOptions({"-i3", "-o", "all", "--open-mode=append", "cmd"}, {});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->input.kind, StepIoOption::kStream);
  EXPECT_EQ(o->input.task, 3u);
  EXPECT_EQ(o->output.kind, StepIoOption::kStream);
  EXPECT_TRUE(o->append);
  EXPECT_FALSE(ParseSrunOptions({"--open-mode=sideways", "cmd"}, {}).ok());
}

// The allocation's options (for srun outside one) pass through srun's parse.
TEST(SrunOptionsTest, AllocationOptionsPassThrough) {
  Result<SrunOptions> o = ParseSrunOptions(
      {"-p", "batch", "--gres=gpu:1", "-t", "5", "--mem=1G", "-n2", "--qos", "hi", "cmd", "-t"},
      {});
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->num_tasks, 2u);
  EXPECT_EQ(o->command, (std::vector<std::string>{"cmd", "-t"}));
  EXPECT_FALSE(ParseSrunOptions({"--array=1-3", "cmd"}, {}).ok());  // sbatch's only
}

TEST(SrunOptionsTest, StepResourcesAndCpuBinding) {
  Result<SrunOptions> o = ParseSrunOptions({"--mem=2G", "--gres=gpu:a100:2", "-G", "3", "--overlap",
                                            "--cpu-bind=verbose,map_cpu:1,0", "--exclusive", "cmd"},
                                           {});
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->mem_per_node_mb, 2048u);
  EXPECT_EQ(o->mem_per_cpu_mb, 0u);
  EXPECT_EQ(o->gpus_per_node, 2u);
  EXPECT_EQ(o->gpus, 3u);
  EXPECT_TRUE(o->overlap);
  EXPECT_EQ(o->cpu_bind, "verbose,map_cpu:1,0");
  o = ParseSrunOptions({"--mem=1G", "--mem-per-cpu=100", "cmd"}, {});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->mem_per_node_mb, 0u);  // The last one wins.
  EXPECT_EQ(o->mem_per_cpu_mb, 100u);
  EXPECT_FALSE(o->overlap);
  EXPECT_FALSE(o->overcommit);
  o = ParseSrunOptions({"-O", "cmd"}, {});
  ASSERT_TRUE(o.ok());
  EXPECT_TRUE(o->overcommit);
  EXPECT_TRUE(StepRequestFor(*o).overcommit());
  o = ParseSrunOptions({"cmd"}, {{"SLURM_OVERCOMMIT", "1"}});
  ASSERT_TRUE(o.ok());
  EXPECT_TRUE(o->overcommit);
  // -m: where the step's tasks go, checked here.
  o = ParseSrunOptions({"-m", "cyclic:block", "cmd"}, {});
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->distribution, "cyclic:block");
  EXPECT_EQ(StepRequestFor(*o).distribution(), "cyclic:block");
  o = ParseSrunOptions({"--distribution=plane=2", "cmd"}, {});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->distribution, "plane=2");
  EXPECT_EQ(ParseSrunOptions({"-m", "sideways", "cmd"}, {}).status().message(),
            "srun: error: Invalid --distribution specification");
  EXPECT_EQ(ParseSrunOptions({"-m", "block:sideways", "cmd"}, {}).status().message(),
            "srun: error: Invalid --distribution specification");
  // --hint, else SLURM_HINT: checked here, carried to the step's binding.
  o = ParseSrunOptions({"--hint=nomultithread", "cmd"}, {{"SLURM_HINT", "compute_bound"}});
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(StepRequestFor(*o).hint(), "nomultithread");
  o = ParseSrunOptions({"cmd"}, {{"SLURM_HINT", "multithread"}});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(StepRequestFor(*o).hint(), "multithread");
  // --mem-bind and --ntasks-per-core, else their variables; srun's own
  // SLURM_MEM_BIND of a task (with SLURM_MEM_BIND_TYPE) is no default.
  o = ParseSrunOptions({"--mem-bind=verbose,map_mem:0", "--ntasks-per-core=1", "cmd"}, {});
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(StepRequestFor(*o).mem_bind(), "verbose,map_mem:0");
  EXPECT_EQ(StepRequestFor(*o).ntasks_per_core(), 1u);
  o = ParseSrunOptions({"cmd"}, {{"SLURM_MEM_BIND", "local"}, {"SLURM_NTASKS_PER_CORE", "2"}});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->mem_bind, "local");
  EXPECT_EQ(o->ntasks_per_core, 2u);
  o = ParseSrunOptions({"cmd"},
                       {{"SLURM_MEM_BIND", "quiet,local"}, {"SLURM_MEM_BIND_TYPE", "local"}});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->mem_bind, "");
  EXPECT_EQ(ParseSrunOptions({"--mem-bind=sideways", "cmd"}, {}).status().message(),
            "srun: error: Invalid --mem-bind argument: sideways");
  EXPECT_EQ(ParseSrunOptions({"--hint=fast", "cmd"}, {}).status().message(),
            "srun: error: unrecognized --hint argument \"fast\", valid hints: compute_bound, "
            "memory_bound, multithread, nomultithread");
  EXPECT_EQ(ParseSrunOptions({"-m", "arbitrary", "cmd"}, {}).status().message(),
            "srun: error: -m arbitrary needs SLURM_HOSTFILE, the file naming each task's node");
  {
    const std::string hostfile = ::testing::TempDir() + "/srun_test_hostfile";
    std::ofstream(hostfile) << "n2\nn1\nn2\n";
    // The file decides the nodes, however many tasks per node the job said.
    o = ParseSrunOptions({"-m", "arbitrary", "cmd"},
                         {{"SLURM_HOSTFILE", hostfile}, {"SLURM_NTASKS_PER_NODE", "1"}});
    ASSERT_TRUE(o.ok()) << o.status().message();
    EXPECT_EQ(o->num_tasks, 3u);
    EXPECT_EQ(o->num_nodes, 2u);
    EXPECT_EQ(o->ntasks_per_node, 0u);
    EXPECT_EQ(o->nodelist, "n2,n1");
    wire::CreateStepRequest request = StepRequestFor(*o);
    EXPECT_EQ(std::vector<std::string>(request.task_hosts().begin(), request.task_hosts().end()),
              (std::vector<std::string>{"n2", "n1", "n2"}));
    o = ParseSrunOptions({"-n", "4", "-m", "arbitrary", "cmd"}, {{"SLURM_HOSTFILE", hostfile}});
    ASSERT_FALSE(o.ok());
    EXPECT_EQ(o.status().message(),
              "srun: error: SLURM_HOSTFILE " + hostfile +
                  ": the hostfile names 3 hosts, fewer than the 4 tasks asked");
    std::remove(hostfile.c_str());
  }
  Result<SrunOptions> bad = ParseSrunOptions({"--cpu-bind=sideways", "cmd"}, {});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "srun: error: Invalid --cpu-bind argument: sideways");
  EXPECT_FALSE(ParseSrunOptions({"--mem=lots", "cmd"}, {}).ok());
  // The job's memory is no default for its steps; a user's binding is.
  o = ParseSrunOptions({"cmd"}, {{"SLURM_MEM_PER_NODE", "1000"}, {"SLURM_CPU_BIND", "cores"}});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->mem_per_node_mb, 0u);
  EXPECT_EQ(o->cpu_bind, "cores");
  // What a task of a step inherits is not.
  o = ParseSrunOptions(
      {"cmd"}, {{"SLURM_CPU_BIND", "quiet,mask_cpu:0x1"}, {"SLURM_CPU_BIND_TYPE", "mask_cpu:"}});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->cpu_bind, "");
}

TEST(SrunOptionsTest, KillOnBadExitAndWait) {
  Result<SrunOptions> o = ParseSrunOptions({"-K", "-W", "5", "cmd"}, {});
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_TRUE(o->kill_on_bad_exit);
  EXPECT_EQ(o->wait_seconds, 5u);
  o = ParseSrunOptions({"--kill-on-bad-exit=0", "--wait=0", "cmd"}, {{"SLURM_KILL_BAD_EXIT", "1"}});
  ASSERT_TRUE(o.ok());
  EXPECT_FALSE(o->kill_on_bad_exit);
  EXPECT_EQ(o->wait_seconds, 0u);
  o = ParseSrunOptions({"cmd"}, {{"SLURM_KILL_BAD_EXIT", "1"}, {"SLURM_WAIT", "7"}});
  ASSERT_TRUE(o.ok());
  EXPECT_TRUE(o->kill_on_bad_exit);
  EXPECT_EQ(o->wait_seconds, 7u);
  EXPECT_FALSE(ParseSrunOptions({"-W", "soon", "cmd"}, {}).ok());
}

TEST(SrunOptionsTest, ExitCodeIsTheHighestExitCodeElseTheHighestSignal) {
  auto exited = [](int code) { return static_cast<uint32_t>(code << 8); };
  EXPECT_EQ(StepExitCode({}), 0);
  EXPECT_EQ(StepExitCode({{0, exited(0)}, {1, exited(0)}}), 0);
  EXPECT_EQ(StepExitCode({{0, exited(3)}, {1, exited(4)}}), 4);
  EXPECT_EQ(StepExitCode({{0, exited(0)}, {1, 9}}), 137);
  EXPECT_EQ(StepExitCode({{0, 15}, {1, 9}}), 143);
  // -K: the failing task's code, not its killed siblings' 137.
  EXPECT_EQ(StepExitCode({{0, exited(3)}, {1, 9}, {2, 9}}), 3);
}

TEST(SrunOptionsTest, TaskStatusLinesGroupTasksByState) {
  EXPECT_EQ(
      TaskStatusLines(7, 1, 6, {{3, 2u << 8}, {4, 0}, {5, 9}}),
      (std::vector<std::string>{
          "srun: StepId=7.1 tasks 0-2: running", "srun: StepId=7.1 task 3: exited with exit code 2",
          "srun: StepId=7.1 task 4: exited", "srun: StepId=7.1 task 5: killed by signal 9"}));
  EXPECT_EQ(TaskStatusLines(7, 0, 4, {{1, 0}}),
            (std::vector<std::string>{"srun: StepId=7.0 tasks 0,2-3: running",
                                      "srun: StepId=7.0 task 1: exited"}));
}

TEST(StepCommandsTest, ParsesStepIds) {
  EXPECT_EQ(ParseStepId("123.4"), std::make_optional(std::make_pair(123u, 4u)));
  EXPECT_EQ(ParseStepId("123"), std::nullopt);
  EXPECT_EQ(ParseStepId("123.batch"), std::nullopt);
  EXPECT_EQ(ParseStepId(".1"), std::nullopt);
}

TEST(StepCommandsTest, TableHasSlurmsColumns) {
  wire::JobStepRecord s;
  s.set_job_id(42);
  s.set_step_id(1);
  s.set_name("a-very-long-name");
  s.set_partition("batch");
  s.set_user("alice");
  s.set_start_time(1000);
  s.add_nodes("n1");
  s.add_nodes("n2");
  EXPECT_EQ(FormatStepTable({s}, 1065, true),
            "         STEPID     NAME PARTITION     USER      TIME NODELIST\n"
            "           42.1 a-very-l     batch    alice      1:05 n[1-2]\n");
}

}  // namespace
}  // namespace rota::cli

namespace rota::cli {
namespace {

TEST(SrunOptionsTest, PtyTalksToTaskZeroOnly) {
  Result<SrunOptions> o = ParseSrunOptions({"-n3", "--pty", "bash", "-i"}, {});
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_TRUE(o->pty);
  EXPECT_EQ(o->command, (std::vector<std::string>{"bash", "-i"}));
  // The other tasks' output goes to /dev/null; stdin to task 0.
  EXPECT_EQ(o->output.kind, StepIoOption::kOneTask);
  EXPECT_EQ(o->output.task, 0u);
  EXPECT_EQ(o->error.kind, StepIoOption::kOneTask);
  EXPECT_EQ(o->error.task, 0u);
  EXPECT_EQ(o->input.kind, StepIoOption::kStream);
  EXPECT_EQ(o->input.task, 0u);
  EXPECT_FALSE(ParseSrunOptions({"bash"}, {})->pty);
}

TEST(SrunOptionsTest, PtyRefusesStreamOptions) {
  for (const char* given : {"-o", "-e", "-i"}) {
    Result<SrunOptions> o = ParseSrunOptions({"--pty", given, "x.txt", "bash"}, {});
    ASSERT_FALSE(o.ok()) << given;
    EXPECT_EQ(o.status().message(),
              "srun: error: --error/--input/--output are incompatible with --pty");
  }
}

}  // namespace
}  // namespace rota::cli

namespace rota::cli {
namespace {

TEST(SrunOptionsTest, MoreNodesThanTheAllocationIsRefusedAtOnce) {
  Environment env{{"SLURM_JOB_ID", "42"}, {"SLURM_JOB_NUM_NODES", "2"}, {"SLURM_NNODES", "2"}};
  Result<SrunOptions> o = ParseSrunOptions({"-N3", "true"}, env);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(StepNodeCountError(*o, env), "srun: error: Only allocated 2 nodes asked for 3");
  o = ParseSrunOptions({"-N2", "true"}, env);
  EXPECT_EQ(StepNodeCountError(*o, env), std::nullopt);
  o = ParseSrunOptions({"true"}, env);  // The inherited count fits.
  EXPECT_EQ(StepNodeCountError(*o, env), std::nullopt);
  // Another job's allocation (--jobid): its size is not known here.
  o = ParseSrunOptions({"--jobid=7", "-N3", "true"}, env);
  EXPECT_EQ(StepNodeCountError(*o, env), std::nullopt);
}

}  // namespace
}  // namespace rota::cli
