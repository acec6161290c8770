#include "cli/submit/container_options.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "cli/submit/job_options.h"

namespace rota::cli {
namespace {

using ::testing::HasSubstr;
using C = wire::ContainerSpec;

Result<ParsedJobOptions> Parse(std::vector<std::string> args, Command command) {
  JobOptionsContext context{{}, "/home/ada", 1'700'000'000};
  return ParseJobOptions(command, {std::move(args), {}}, context);
}

TEST(ContainerOptionsTest, PyxisOptionsFillTheSpecOnEveryCommand) {
  for (Command command : {Command::kSbatch, Command::kSrun, Command::kSalloc}) {
    Result<ParsedJobOptions> parsed = Parse(
        {"--container-image=/images/base.sqsh", "--container-mounts=/data:/data:ro,/scratch",
         "--container-workdir=/work", "--container-name=train:no_exec", "--container-remap-root",
         "--no-container-mount-home", "--container-readonly", "--container-entrypoint",
         "--container-env=PATH,HOME", "--container-save=/images/after.sqsh", "x"},
        command);
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    const C& c = parsed->spec.container();
    EXPECT_EQ(c.image(), "/images/base.sqsh");
    ASSERT_EQ(c.mounts_size(), 2);
    EXPECT_EQ(c.mounts(0).source(), "/data");
    EXPECT_EQ(c.mounts(0).target(), "/data");
    ASSERT_EQ(c.mounts(0).flags_size(), 1);
    EXPECT_EQ(c.mounts(0).flags(0), "ro");
    // SRC alone: the same path inside.
    EXPECT_EQ(c.mounts(1).target(), "/scratch");
    EXPECT_EQ(c.workdir(), "/work");
    EXPECT_EQ(c.name(), "train");
    EXPECT_EQ(c.name_flag(), C::NO_EXEC);
    EXPECT_EQ(c.remap_root(), C::ON);
    EXPECT_EQ(c.mount_home(), C::OFF);
    EXPECT_EQ(c.writable(), C::OFF);
    EXPECT_EQ(c.entrypoint(), C::ON);
    EXPECT_THAT(std::vector<std::string>(c.env().begin(), c.env().end()),
                ::testing::ElementsAre("PATH", "HOME"));
    EXPECT_EQ(c.save(), "/images/after.sqsh");
  }
}

TEST(ContainerOptionsTest, UnsetSwitchesStayUnsetForTheNodesDefault) {
  C spec;
  ASSERT_TRUE(ApplyContainerOption("container-image", "ubuntu:22.04", spec).ok());
  EXPECT_EQ(spec.writable(), C::UNSET);
  EXPECT_EQ(spec.remap_root(), C::UNSET);
  EXPECT_EQ(spec.name_flag(), C::AUTO);
}

TEST(ContainerOptionsTest, BadValuesNameTheOption) {
  auto error = [](std::vector<std::string> args) {
    Result<ParsedJobOptions> parsed = Parse(std::move(args), Command::kSrun);
    return parsed.ok() ? std::string() : parsed.status().message();
  };
  EXPECT_EQ(error({"--container-mounts=/a:/b:sideways", "x"}),
            "srun: error: --container-mounts: mount '/a:/b:sideways': unknown flag 'sideways'");
  EXPECT_EQ(error({"--container-mounts=/a:/b:ro:x", "x"}),
            "srun: error: --container-mounts: mount '/a:/b:ro:x' is not SRC[:DST[:FLAGS]]");
  EXPECT_EQ(error({"--container-name=a/b", "x"}),
            "srun: error: --container-name: 'a/b' is not a container name");
  EXPECT_EQ(error({"--container-name=a:sometimes", "x"}),
            "srun: error: --container-name: 'sometimes' is not a container name flag (auto, "
            "create, exec, no_exec)");
  EXPECT_EQ(error({"--container-workdir=work", "x"}),
            "srun: error: --container-workdir: 'work' is not an absolute path");
  EXPECT_THAT(error({"--container-image=", "x"}), HasSubstr("the image is empty"));
  // Slurm's OCI bundles, on each command; a relative bundle is the
  // command's working directory's (the node's is another).
  for (Command command : {Command::kSbatch, Command::kSalloc, Command::kSrun}) {
    Result<ParsedJobOptions> parsed = Parse({"--container=/bundle", "x"}, command);
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    EXPECT_EQ(parsed->spec.container().bundle(), "/bundle");
  }
  Result<ParsedJobOptions> relative = Parse({"--container=b/x", "x"}, Command::kSbatch);
  ASSERT_TRUE(relative.ok()) << relative.status().message();
  EXPECT_EQ(relative->spec.container().bundle(),
            (std::filesystem::current_path() / "b/x").string());
}

// salloc hands its container to the steps of its allocation through pyxis'
// spank variables; srun reads them back to the same spec.
TEST(ContainerOptionsTest, SpankVariablesCarryTheSpecToTheAllocationsSteps) {
  C spec;
  ASSERT_TRUE(ApplyContainerOption("container-image", "/i/a.sqsh", spec).ok());
  ASSERT_TRUE(ApplyContainerOption("container-mounts", "/d:/in:ro+rprivate", spec).ok());
  ASSERT_TRUE(ApplyContainerOption("container-name", "keep:create", spec).ok());
  ASSERT_TRUE(ApplyContainerOption("container-remap-root", "", spec).ok());
  ASSERT_TRUE(ApplyContainerOption("container-readonly", "", spec).ok());
  const std::map<std::string, std::string> exported = ContainerSpankEnvironment(spec);
  EXPECT_EQ(exported.at("SLURM_SPANK__SLURM_SPANK_OPTION_pyxis_container_image"), "/i/a.sqsh");
  EXPECT_EQ(exported.at("SLURM_SPANK__SLURM_SPANK_OPTION_pyxis_container_name"), "keep:create");
  std::map<std::string, std::string, std::less<>> env(exported.begin(), exported.end());
  env["PATH"] = "/bin";
  Result<C> back = ContainerSpecFromSpankEnvironment(env);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->SerializeAsString(), spec.SerializeAsString());
  // None exported: no container.
  Result<C> none = ContainerSpecFromSpankEnvironment({{"PATH", "/bin"}});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->image().empty());
  EXPECT_TRUE(ContainerSpankEnvironment(C()).empty());
}

}  // namespace
}  // namespace rota::cli
