#include "noded/container/image_import.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "noded/container/image_digest.h"
#include "noded/container/test_images.h"
#include "testing/temp_dir.h"

namespace rota::noded::container {
namespace {

using testing::ImageBuilder;
using testing::ReadWholeFile;
using testing::TarEntry;
using testing::WriteWholeFile;
namespace fs = std::filesystem;

// Sets PATH for one test, and puts it back.
class ScopedPath {
 public:
  explicit ScopedPath(const std::string& path) {
    if (const char* old = std::getenv("PATH"); old != nullptr) saved_ = old;
    setenv("PATH", path.c_str(), 1);
  }
  ~ScopedPath() { setenv("PATH", saved_.c_str(), 1); }

 private:
  std::string saved_;
};

bool Exists(const fs::path& p) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(p, ec));
}

mode_t ModeOf(const fs::path& p) {
  struct stat st {};
  lstat(p.c_str(), &st);
  return st.st_mode & 07777;
}

ImageConfig ExpectedConfig() {
  return ImageConfig{{"PATH=/bin", "ROTA_TEST=1"}, {"/bin/sh", "-c"}, {"echo hello"}, "/opt"};
}

// What the two test layers make, whiteouts applied.
void ExpectLayeredRootfs(const fs::path& rootfs) {
  EXPECT_NE(ReadWholeFile(rootfs / "etc/os-release").find(testing::kPrettyName), std::string::npos);
  EXPECT_EQ(fs::file_size(rootfs / "bin/busybox"), fs::file_size(testing::kBusybox));
  EXPECT_TRUE(fs::is_symlink(rootfs / "bin/sh"));
  EXPECT_EQ(fs::read_symlink(rootfs / "bin/sh"), "busybox");
  EXPECT_TRUE(fs::equivalent(rootfs / "bin/ls", rootfs / "bin/busybox"));  // A hard link.
  EXPECT_EQ(ModeOf(rootfs / "bin/su-test"), 0755u);                        // No setuid.
  EXPECT_FALSE(Exists(rootfs / "etc/motd"));                               // .wh.motd
  EXPECT_FALSE(Exists(rootfs / "opt/old"));                                // .wh..wh..opq
  EXPECT_FALSE(Exists(rootfs / "opt/olddir"));
  EXPECT_EQ(ReadWholeFile(rootfs / "opt/new"), "from the top layer\n");  // Same layer, kept.
  EXPECT_EQ(ReadWholeFile(rootfs / "opt/later"), "also from the top layer\n");
  EXPECT_EQ(ReadWholeFile(rootfs / "ro/added"), "top\n");
  EXPECT_EQ(ModeOf(rootfs / "ro"), 0555u);  // Writable only while the layers went on.
  EXPECT_TRUE(fs::is_directory(rootfs / "dev"));
  EXPECT_FALSE(Exists(rootfs / "dev/null"));  // Device nodes are skipped.
}

TEST(ImportImageTest, Squashfs) {
  rota::testing::TempDir tmp;
  const std::string image = ImageBuilder(tmp.path()).Squashfs("image");
  const std::string dest = (tmp.path() / "dest").string();
  Status status = ImportImage(image, dest);
  ASSERT_TRUE(status.ok()) << status.ToString();
  const fs::path rootfs = fs::path(dest) / "rootfs";
  EXPECT_NE(ReadWholeFile(rootfs / "etc/os-release").find(testing::kPrettyName), std::string::npos);
  EXPECT_EQ(fs::read_symlink(rootfs / "bin/sh"), "busybox");
  EXPECT_EQ(fs::file_size(rootfs / "bin/busybox"), fs::file_size(testing::kBusybox));
  Result<ImageConfig> config = LoadImageConfig(dest);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(*config, ImageConfig{});
}

TEST(ImportImageTest, OciLayoutAppliesLayersAndWhiteouts) {
  rota::testing::TempDir tmp;
  const std::string layout = ImageBuilder(tmp.path()).OciLayout("layout");
  const std::string dest = (tmp.path() / "dest").string();
  Status status = ImportImage(layout, dest);
  ASSERT_TRUE(status.ok()) << status.ToString();
  ExpectLayeredRootfs(fs::path(dest) / "rootfs");
  Result<ImageConfig> config = LoadImageConfig(dest);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(*config, ExpectedConfig());
}

TEST(ImportImageTest, DockerArchive) {
  rota::testing::TempDir tmp;
  const std::string archive = ImageBuilder(tmp.path()).DockerArchive("saved");
  const std::string dest = (tmp.path() / "dest").string();
  Status status = ImportImage(archive, dest);
  ASSERT_TRUE(status.ok()) << status.ToString();
  ExpectLayeredRootfs(fs::path(dest) / "rootfs");
  EXPECT_EQ(LoadImageConfig(dest).value(), ExpectedConfig());
  // Only the image is left: the unpacked archive is gone.
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dest)) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"image.json", "rootfs"}));
}

TEST(ImportImageTest, NestedIndexPicksThisNodesPlatform) {
  rota::testing::TempDir tmp;
  const std::string layout = ImageBuilder(tmp.path()).OciLayout("layout");
  nlohmann::json top = nlohmann::json::parse(ReadWholeFile(layout + "/index.json"));
  nlohmann::json amd64 = top["manifests"][0];
  amd64["platform"] = {{"os", "linux"}, {"architecture", "amd64"}};
  nlohmann::json arm64 = amd64;
  arm64["platform"]["architecture"] = "arm64";
  arm64["digest"] = "sha256:" + std::string(64, 'e');  // Missing: would fail if chosen.
  const std::string nested = nlohmann::json{
      {"schemaVersion", 2},
      {"mediaType", "application/vnd.oci.image.index.v1+json"},
      {"manifests",
       {arm64, amd64}}}.dump();
  const std::string hex = Sha256Hex(nested);
  WriteWholeFile(layout + "/blobs/sha256/" + hex, nested);
  top["manifests"] = {{{"mediaType", "application/vnd.oci.image.index.v1+json"},
                       {"digest", "sha256:" + hex},
                       {"size", nested.size()}}};
  WriteWholeFile(layout + "/index.json", top.dump());
  const std::string dest = (tmp.path() / "dest").string();
  Status status = ImportImage(layout, dest);
#if defined(__x86_64__)
  ASSERT_TRUE(status.ok()) << status.ToString();
  ExpectLayeredRootfs(fs::path(dest) / "rootfs");
#endif
}

TEST(ImportImageTest, DigestMismatchIsRefusedNamingTheBlob) {
  rota::testing::TempDir tmp;
  const std::string layout = ImageBuilder(tmp.path()).OciLayout("layout");
  const std::string blob = testing::LayerBlobPath(layout, 1);
  WriteWholeFile(blob, ReadWholeFile(blob) + "tampered");
  const std::string dest = (tmp.path() / "dest").string();
  Status status = ImportImage(layout, dest);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  const std::string digest = "sha256:" + fs::path(blob).filename().string();
  EXPECT_NE(status.message().find("layer " + digest + " does not match its digest"),
            std::string::npos)
      << status.message();
  EXPECT_TRUE(status.message().starts_with("image '" + layout + "': ")) << status.message();
  // Nothing that looks like an image is left.
  EXPECT_FALSE(Exists(fs::path(dest) / "rootfs"));
  EXPECT_FALSE(Exists(fs::path(dest) / "image.json"));
}

TEST(ImportImageTest, PathTraversalIsRefused) {
  for (const char* evil : {"../evil", "etc/../../evil", "/evil-absolute"}) {
    rota::testing::TempDir tmp;
    const std::string layout =
        ImageBuilder(tmp.path())
            .OciLayout("layout",
                       {testing::BaseLayer(), {{evil, TarEntry::Type::kFile, "pwned\n", 0644}}});
    const std::string dest = (tmp.path() / "dest").string();
    Status status = ImportImage(layout, dest);
    ASSERT_FALSE(status.ok()) << evil;
    EXPECT_NE(status.message().find("path traversal"), std::string::npos) << status.message();
    EXPECT_FALSE(Exists(tmp.path() / "evil"));
    EXPECT_FALSE(Exists("/evil-absolute"));
    EXPECT_FALSE(Exists(fs::path(dest) / "rootfs"));
  }
}

TEST(ImportImageTest, NeverWritesThroughASymlink) {
  rota::testing::TempDir tmp;
  const fs::path outside = tmp.path() / "outside";
  fs::create_directories(outside);
  const std::string victim = tmp.Write("victim", "precious\n");
  using T = TarEntry::Type;
  // A later layer writing below a link to a directory outside: refused.
  {
    const std::string layout =
        ImageBuilder(tmp.path())
            .OciLayout("through-dir", {{{"link", T::kSymlink, outside.string(), 0777}},
                                       {{"link/pwned", T::kFile, "pwned\n", 0644}}});
    Status status = ImportImage(layout, (tmp.path() / "dest1").string());
    EXPECT_FALSE(status.ok());
    EXPECT_NE(status.message().find("entry 'link/pwned'"), std::string::npos) << status.message();
    EXPECT_FALSE(Exists(outside / "pwned"));
  }
  // A later layer's file where a link to a file outside was: replaces the
  // link; the file outside keeps its content.
  {
    const std::string layout =
        ImageBuilder(tmp.path())
            .OciLayout(
                "over-link",
                {{{"esc", T::kSymlink, victim, 0777}, {"rel", T::kSymlink, "../../victim", 0777}},
                 {{"esc", T::kFile, "new\n", 0644}, {"rel", T::kFile, "new\n", 0644}}});
    const fs::path dest = tmp.path() / "dest2";
    Status status = ImportImage(layout, dest.string());
    ASSERT_TRUE(status.ok()) << status.ToString();
    EXPECT_EQ(ReadWholeFile(victim), "precious\n");
    EXPECT_FALSE(fs::is_symlink(dest / "rootfs/esc"));
    EXPECT_EQ(ReadWholeFile(dest / "rootfs/esc"), "new\n");
    EXPECT_EQ(ReadWholeFile(dest / "rootfs/rel"), "new\n");
  }
  // A whiteout below a link removes nothing outside.
  {
    const std::string layout =
        ImageBuilder(tmp.path())
            .OciLayout("whiteout-link", {{{"link", T::kSymlink, tmp.path().string(), 0777}},
                                         {{"link/.wh.victim", T::kFile, "", 0644}}});
    Status status = ImportImage(layout, (tmp.path() / "dest3").string());
    EXPECT_TRUE(status.ok()) << status.ToString();
    EXPECT_EQ(ReadWholeFile(victim), "precious\n");
  }
}

TEST(ImportImageTest, RegistryWithoutSkopeo) {
  rota::testing::TempDir tmp;
  fs::create_directories(tmp.path() / "emptybin");
  ScopedPath path((tmp.path() / "emptybin").string());
  const std::string dest = (tmp.path() / "dest").string();
  Status status = ImportImage("ubuntu:22.04", dest);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(),
            "image 'ubuntu:22.04' is in a registry, and pulling needs skopeo, which is not "
            "installed on this node (or import it to a squashfs file first)");
  EXPECT_FALSE(Exists(fs::path(dest) / "rootfs"));
}

TEST(ImportImageTest, RegistryThroughSkopeo) {
  rota::testing::TempDir tmp;
  const std::string prepared = ImageBuilder(tmp.path()).OciLayout("prepared");
  const fs::path bin = tmp.path() / "bin";
  fs::create_directories(bin);
  const std::string log = (tmp.path() / "skopeo.log").string();
  // A stand-in for `skopeo copy SRC oci:DIR:TAG`: the prepared layout is the
  // registry's image.
  WriteWholeFile((bin / "skopeo").string(),
                 "#!/bin/sh\n"
                 "echo \"$@\" > '" +
                     log +
                     "'\n"
                     "dest=\"${3#oci:}\"; dest=\"${dest%:latest}\"\n"
                     "exec cp -r '" +
                     prepared + "' \"$dest\"\n");
  fs::permissions(bin / "skopeo", fs::perms(0755));
  ScopedPath path(bin.string() + ":/usr/bin:/bin");
  const std::string dest = (tmp.path() / "dest").string();
  Status status = ImportImage("nvcr.io#nvidia/pytorch:24.01-py3", dest);
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(ReadWholeFile(log),
            "copy docker://nvcr.io/nvidia/pytorch:24.01-py3 oci:" + dest + "/pull:latest\n");
  ExpectLayeredRootfs(fs::path(dest) / "rootfs");
  EXPECT_EQ(LoadImageConfig(dest).value(), ExpectedConfig());
  EXPECT_FALSE(Exists(fs::path(dest) / "pull"));
}

TEST(ImportImageTest, SkopeoFailureIsReported) {
  rota::testing::TempDir tmp;
  const fs::path bin = tmp.path() / "bin";
  fs::create_directories(bin);
  WriteWholeFile((bin / "skopeo").string(),
                 "#!/bin/sh\necho 'manifest unknown: no such tag' >&2\nexit 1\n");
  fs::permissions(bin / "skopeo", fs::perms(0755));
  ScopedPath path(bin.string() + ":/usr/bin:/bin");
  const std::string dest = (tmp.path() / "dest").string();
  Status status = ImportImage("ubuntu:99.99", dest);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("manifest unknown: no such tag"), std::string::npos)
      << status.message();
  EXPECT_TRUE(status.message().starts_with("image 'ubuntu:99.99': ")) << status.message();
  EXPECT_FALSE(Exists(fs::path(dest) / "rootfs"));
  EXPECT_FALSE(Exists(fs::path(dest) / "pull"));
}

TEST(ImportImageTest, CredentialsInTheReferenceAreRefused) {
  rota::testing::TempDir tmp;
  Status status =
      ImportImage("alice@nvcr.io#nvidia/pytorch:24.01-py3", (tmp.path() / "d").string());
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("USER@"), std::string::npos) << status.message();
}

TEST(ImportImageTest, ExistingRootfsIsLeftAlone) {
  rota::testing::TempDir tmp;
  const std::string image = ImageBuilder(tmp.path()).Squashfs("image");
  tmp.Write("dest/rootfs/mine", "keep\n");
  Status status = ImportImage(image, (tmp.path() / "dest").string());
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(ReadWholeFile(tmp.path() / "dest/rootfs/mine"), "keep\n");
}

TEST(ImageConfigTest, RoundTrip) {
  rota::testing::TempDir tmp;
  ImageConfig config = ExpectedConfig();
  ASSERT_TRUE(SaveImageConfig(config, tmp.path().string()).ok());
  EXPECT_EQ(LoadImageConfig(tmp.path().string()).value(), config);
  WriteWholeFile((tmp.path() / "image.json").string(), "{not json");
  EXPECT_EQ(LoadImageConfig(tmp.path().string()).status().code(), StatusCode::kCorruption);
}

}  // namespace
}  // namespace rota::noded::container
