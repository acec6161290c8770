#include "noded/container/container_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "testing/temp_dir.h"

namespace rota::noded {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using C = wire::ContainerSpec;

// Images as plain directories; counts what is held.
class FakeImages final : public ImageSource {
 public:
  explicit FakeImages(std::string dir) : dir_(std::move(dir)) {}
  Result<ContainerImage> Acquire(const std::string& ref, uid_t, gid_t,
                                 const std::vector<gid_t>&) override {
    if (ref != "base") return NotFound("image '" + ref + "': no such image");
    ++held;
    ContainerImage image;
    image.rootfs = dir_;
    image.env = {"PATH=/image/bin", "LANG=C.UTF-8", "FROM_IMAGE=1"};
    image.entrypoint = {"/entry.sh"};
    image.working_dir = "/srv";
    image.key = "k";
    return image;
  }
  void Release(uid_t, const std::string& key) override {
    EXPECT_EQ(key, "k");
    --held;
  }
  int held = 0;

 private:
  std::string dir_;
};

class ContainerStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    image_dir_ = tmp_.path() / "image";
    fs::create_directories(image_dir_ / "etc");
    std::ofstream(image_dir_ / "etc/os-release") << "PRETTY_NAME=\"from the image\"\n";
  }
  void TearDown() override {
    // Unmounts before the temporary directory goes.
    for (uint32_t job : {1u, 2u, 3u}) store_.ForgetJob(job);
  }
  C Spec(std::string name = "") {
    C spec;
    spec.set_image("base");
    spec.set_name(std::move(name));
    return spec;
  }
  ContainerUser user_{.uid = 0, .gid = 0, .groups = {0}, .home = "/root"};
  testing::TempDir tmp_;
  fs::path image_dir_;
  FakeImages images_{(tmp_.path() / "image").string()};
  ContainerStore store_{(tmp_.path() / "state").string(), ContainerRuntime{.program = "crun"},
                        &images_};
};

// A container's root is an overlay over the image: what it writes stays in
// the container (the image is untouched), and goes with an unnamed one.
TEST_F(ContainerStoreTest, AStepsOwnContainerWritesAboveTheImageAndGoesWithTheStep) {
  Result<std::shared_ptr<OpenContainer>> opened = store_.Open(Spec(), user_, 1, 0);
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  const std::string rootfs = (*opened)->rootfs;
  std::ifstream release(rootfs + "/etc/os-release");
  std::string line;
  std::getline(release, line);
  EXPECT_EQ(line, "PRETTY_NAME=\"from the image\"");
  std::ofstream(rootfs + "/written") << "x";
  EXPECT_TRUE(fs::exists(rootfs + "/written"));
  EXPECT_FALSE(fs::exists(image_dir_ / "written"));
  EXPECT_EQ(images_.held, 1);
  store_.Close(*opened);
  EXPECT_FALSE(fs::exists((*opened)->dir));
  EXPECT_EQ(images_.held, 0);
}

TEST_F(ContainerStoreTest, ANamedContainerIsKeptForTheJobsNextStepAndGoesWithTheJob) {
  Result<std::shared_ptr<OpenContainer>> first = store_.Open(Spec("keep"), user_, 2, 0);
  ASSERT_TRUE(first.ok()) << first.status().message();
  std::ofstream((*first)->rootfs + "/kept") << "1";
  store_.Close(*first);
  ASSERT_TRUE(fs::exists((*first)->rootfs + "/kept"));
  // The next step finds it, without an image too.
  C again = Spec("keep");
  again.clear_image();
  Result<std::shared_ptr<OpenContainer>> second = store_.Open(again, user_, 2, 1);
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_EQ((*second)->dir, (*first)->dir);
  store_.Close(*second);
  // Another job does not see it.
  Result<std::shared_ptr<OpenContainer>> other = store_.Open(again, user_, 3, 0);
  ASSERT_FALSE(other.ok());
  EXPECT_THAT(other.status().message(), HasSubstr("needs --container-image"));
  store_.ForgetJob(2);
  EXPECT_FALSE(fs::exists((*first)->dir));
  EXPECT_EQ(images_.held, 0);
}

TEST_F(ContainerStoreTest, NameFlagsAskForANewOrAnExistingContainer) {
  C create = Spec("n");
  create.set_name_flag(C::CREATE);
  C exec = Spec("n");
  exec.set_name_flag(C::EXEC);
  Result<std::shared_ptr<OpenContainer>> missing = store_.Open(exec, user_, 1, 0);
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("container 'n' does not exist in job 1"));
  Result<std::shared_ptr<OpenContainer>> made = store_.Open(create, user_, 1, 0);
  ASSERT_TRUE(made.ok()) << made.status().message();
  Result<std::shared_ptr<OpenContainer>> twice = store_.Open(create, user_, 1, 1);
  ASSERT_FALSE(twice.ok());
  EXPECT_THAT(twice.status().message(), HasSubstr("exists already"));
  Result<std::shared_ptr<OpenContainer>> found = store_.Open(exec, user_, 1, 2);
  EXPECT_TRUE(found.ok());
}

TEST_F(ContainerStoreTest, AnImageThatCannotBeHadFailsTheOpenAndLeavesNothing) {
  C spec = Spec();
  spec.set_image("missing");
  Result<std::shared_ptr<OpenContainer>> opened = store_.Open(spec, user_, 1, 0);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().message(), "image 'missing': no such image");
  EXPECT_FALSE(fs::exists(tmp_.path() / "state/job_1/step_0"));
}

TEST_F(ContainerStoreTest, ASweepRemovesContainersOfJobsThatAreGone) {
  ASSERT_TRUE(store_.Open(Spec("a"), user_, 1, 0).ok());
  ASSERT_TRUE(store_.Open(Spec("b"), user_, 2, 0).ok());
  // A new rotad's store: the mounts of the previous one are still there.
  ContainerStore restarted((tmp_.path() / "state").string(), ContainerRuntime{.program = "crun"},
                           &images_);
  EXPECT_EQ(restarted.SweepStale({2}), 1);
  EXPECT_FALSE(fs::exists(tmp_.path() / "state/job_1"));
  EXPECT_TRUE(fs::exists(tmp_.path() / "state/job_2/name_b/rootfs/etc/os-release"));
}

// The bundle crun is given: the command, the merged environment, the
// working directory, the mounts and the user mapping.
TEST_F(ContainerStoreTest, TaskCommandWritesTheBundleAndRunsCrunOnIt) {
  const std::string data = tmp_.Write("data/in.txt", "in");
  C spec = Spec();
  spec.set_entrypoint(C::ON);
  spec.set_remap_root(C::ON);
  spec.set_writable(C::OFF);
  spec.add_env("PATH");
  wire::ContainerMount* mount = spec.add_mounts();
  mount->set_source((tmp_.path() / "data").string());
  mount->set_target("/data");
  mount->add_flags("ro");
  ContainerUser alice{.uid = 1234, .gid = 99, .groups = {99}, .home = "/home/alice"};
  Result<std::shared_ptr<OpenContainer>> opened = store_.Open(spec, user_, 1, 4);
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  ContainerTask task{.argv = {"python", "train.py"},
                     .env = {"PATH=/host/bin", "SLURM_PROCID=2", "CUDA_VISIBLE_DEVICES=0"},
                     .device_files = {"/dev/nvidia1"},
                     .step_id = 4,
                     .task_id = 2,
                     .keep_fd = 4};
  Result<ContainerCommand> command = store_.TaskCommand(**opened, spec, alice, task);
  ASSERT_TRUE(command.ok()) << command.status().message();
  const std::string bundle = (*opened)->dir + "/tasks/1.4.2";
  EXPECT_EQ(command->config, bundle + "/config.json");
  EXPECT_THAT(command->argv,
              ElementsAre("crun", "--root", (*opened)->dir + "/state", "--cgroup-manager=disabled",
                          "run", "--preserve-fds=2", "--bundle", bundle, "rota-1.4.2"));
  nlohmann::json config = nlohmann::json::parse(std::ifstream(bundle + "/config.json"));
  EXPECT_EQ(config["process"]["args"], nlohmann::json({"/entry.sh", "python", "train.py"}));
  // The image's, with the job's over it; PATH is the host's, as asked.
  EXPECT_EQ(config["process"]["env"],
            nlohmann::json({"PATH=/host/bin", "LANG=C.UTF-8", "FROM_IMAGE=1", "SLURM_PROCID=2",
                            "CUDA_VISIBLE_DEVICES=0"}));
  EXPECT_EQ(config["process"]["cwd"], "/srv");
  EXPECT_EQ(config["process"]["user"]["uid"], 0);  // Remapped
  EXPECT_EQ(config["linux"]["uidMappings"][0]["hostID"], 1234);
  EXPECT_EQ(config["linux"]["uidMappings"][0]["containerID"], 0);
  EXPECT_EQ(config["root"]["readonly"], true);
  EXPECT_EQ(config["root"]["path"], (*opened)->rootfs);
  bool data_mounted = false;
  bool gpu_mounted = false;
  for (const auto& m : config["mounts"]) {
    if (m["destination"] == "/data") {
      data_mounted = true;
      EXPECT_EQ(m["options"], nlohmann::json({"rbind", "ro"}));
    }
    if (m["destination"] == "/dev/nvidia1") gpu_mounted = m["source"] == "/dev/nvidia1";
  }
  EXPECT_TRUE(data_mounted);
  EXPECT_TRUE(gpu_mounted);
  // No nvidia-container-cli on this node: no hook, whatever the GPUs.
  EXPECT_FALSE(config.contains("hooks"));
  // A mount whose source is missing is refused by name.
  spec.mutable_mounts(0)->set_source("/nonexistent/dir");
  Result<ContainerCommand> refused = store_.TaskCommand(**opened, spec, alice, task);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("/nonexistent/dir does not exist"));
}

// With libnvidia-container installed, a task with GPUs gets crun's prestart
// hook, which runs nvidia-container-cli for exactly its GPUs and the
// capabilities the container's environment asks for, in its user mode for an
// ordinary user; a task without GPUs gets none.
TEST_F(ContainerStoreTest, ATaskWithGpusGetsTheDriverHookForThoseGpus) {
  ContainerStore store((tmp_.path() / "state-hook").string(),
                       ContainerRuntime{"crun", "/usr/bin/nvidia-container-cli", "/opt/hook"},
                       &images_);
  C spec = Spec();
  spec.add_env("NVIDIA_DRIVER_CAPABILITIES");
  ContainerUser alice{.uid = 1234, .gid = 99, .groups = {99}, .home = "/home/alice"};
  Result<std::shared_ptr<OpenContainer>> opened = store.Open(spec, user_, 1, 5);
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  ContainerTask task{.argv = {"nvidia-smi"},
                     .env = {"NVIDIA_DRIVER_CAPABILITIES=utility,video"},
                     .device_files = {"/dev/nvidia1", "/dev/nvidia3"},
                     .driver_gpus = {"GPU-aa", "3"},
                     .step_id = 5,
                     .task_id = 0};
  ASSERT_TRUE(store.TaskCommand(**opened, spec, alice, task).ok());
  nlohmann::json config =
      nlohmann::json::parse(std::ifstream((*opened)->dir + "/tasks/1.5.0/config.json"));
  ASSERT_EQ(config["hooks"]["prestart"].size(), 1u) << config.dump(1);
  const nlohmann::json& hook = config["hooks"]["prestart"][0];
  EXPECT_EQ(hook["path"], "/opt/hook");
  EXPECT_EQ(hook["args"],
            nlohmann::json({"/opt/hook", "/usr/bin/nvidia-container-cli", "--user", "configure",
                            "--no-cgroups", "--ldconfig=@/sbin/ldconfig", "--device=GPU-aa,3",
                            "--utility", "--video", "--pid=@PID@", (*opened)->rootfs}));

  task.task_id = 1;
  task.device_files.clear();
  task.driver_gpus.clear();
  ASSERT_TRUE(store.TaskCommand(**opened, spec, alice, task).ok());
  config = nlohmann::json::parse(std::ifstream((*opened)->dir + "/tasks/1.5.1/config.json"));
  EXPECT_FALSE(config.contains("hooks"));
  store.ForgetJob(1);
}

// A batch script's relative image and save file are the job's working
// directory's; absolute paths and registry references stay as they are.
TEST(BatchContainerSpecTest, RelativePathsAreTheWorkingDirectorys) {
  C spec;
  spec.set_image("./img.sqsh");
  spec.set_save("out/saved.sqsh");
  C resolved = BatchContainerSpec(spec, "/home/alice/run");
  EXPECT_EQ(resolved.image(), "/home/alice/run/./img.sqsh");
  EXPECT_EQ(resolved.save(), "/home/alice/run/out/saved.sqsh");
  spec.set_image("ubuntu:22.04");
  spec.set_save("/scratch/s.sqsh");
  resolved = BatchContainerSpec(spec, "/home/alice/run");
  EXPECT_EQ(resolved.image(), "ubuntu:22.04");
  EXPECT_EQ(resolved.save(), "/scratch/s.sqsh");
}

TEST(ContainerEnvironmentTest, TheImagesPathStaysUnlessTheHostsIsAskedFor) {
  EXPECT_THAT(ContainerEnvironment({"PATH=/i", "A=image"}, {"PATH=/h", "A=job", "B=job"}, {}),
              ElementsAre("PATH=/i", "A=job", "B=job"));
  EXPECT_THAT(ContainerEnvironment({}, {"LD_LIBRARY_PATH=/h/lib"}, {}),
              ElementsAre("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"));
  EXPECT_THAT(ContainerEnvironment({"PATH=/i"}, {"LD_LIBRARY_PATH=/h/lib"}, {"LD_LIBRARY_PATH"}),
              ElementsAre("PATH=/i", "LD_LIBRARY_PATH=/h/lib"));
}

}  // namespace
}  // namespace rota::noded
