#include "noded/container/image_ref.h"

#include <gtest/gtest.h>

#include "noded/container/test_images.h"
#include "testing/temp_dir.h"

namespace rota::noded::container {
namespace {

using testing::ImageBuilder;

TEST(ClassifyImageTest, TellsTheFormatsApartByContent) {
  rota::testing::TempDir tmp;
  ImageBuilder images(tmp.path());
  const std::string squashfs = images.Squashfs("image");
  const std::string layout = images.OciLayout("layout");
  const std::string archive = images.DockerArchive("saved");

  EXPECT_EQ(ClassifyImage(squashfs).value(), ImageKind::kSquashfs);
  EXPECT_EQ(ClassifyImage(layout).value(), ImageKind::kOciLayout);
  EXPECT_EQ(ClassifyImage(archive).value(), ImageKind::kDockerArchive);
  // The name does not matter: a squashfs called .tar is still a squashfs.
  std::filesystem::copy_file(squashfs, tmp.path() / "misnamed.tar");
  EXPECT_EQ(ClassifyImage((tmp.path() / "misnamed.tar").string()).value(), ImageKind::kSquashfs);
}

TEST(ClassifyImageTest, RelativePathsAreFiles) {
  rota::testing::TempDir tmp;
  const std::string squashfs = ImageBuilder(tmp.path()).Squashfs("image");
  const std::filesystem::path saved = std::filesystem::current_path();
  std::filesystem::current_path(tmp.path());
  Result<ImageKind> kind = ClassifyImage("./image.sqsh");
  std::filesystem::current_path(saved);
  ASSERT_TRUE(kind.ok()) << kind.status().ToString();
  EXPECT_EQ(*kind, ImageKind::kSquashfs);
}

TEST(ClassifyImageTest, RegistryReferencesInEnrootAndDockerForms) {
  for (const char* ref :
       {"ubuntu", "ubuntu:22.04", "nvcr.io#nvidia/pytorch:24.01-py3", "docker://ubuntu:22.04",
        "docker://nvcr.io#nvidia/pytorch:24.01-py3", "library/busybox@sha256:0123abcd"}) {
    Result<ImageKind> kind = ClassifyImage(ref);
    ASSERT_TRUE(kind.ok()) << ref << ": " << kind.status().ToString();
    EXPECT_EQ(*kind, ImageKind::kRegistry) << ref;
  }
}

TEST(ClassifyImageTest, MissingPathIsNotFoundAndNamed) {
  Result<ImageKind> kind = ClassifyImage("/nonexistent/rota/image.sqsh");
  ASSERT_FALSE(kind.ok());
  EXPECT_EQ(kind.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(kind.status().message(), "image '/nonexistent/rota/image.sqsh' does not exist");
  EXPECT_EQ(ClassifyImage("./no-such-image.sqsh").status().code(), StatusCode::kNotFound);
}

TEST(ClassifyImageTest, OtherFilesAreRefused) {
  rota::testing::TempDir tmp;
  const std::string junk = tmp.Write("junk.bin", "this is no image at all\n");
  Result<ImageKind> kind = ClassifyImage(junk);
  ASSERT_FALSE(kind.ok());
  EXPECT_EQ(kind.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(kind.status().message(),
            "image '" + junk + "' is not a squashfs file, an OCI image layout or a docker archive");
  // A tar without manifest.json, and a directory that is no layout.
  const std::string tar = (tmp.path() / "plain.tar").string();
  testing::WriteTar(tar, {{"hello.txt", testing::TarEntry::Type::kFile, "hi\n", 0644}}, false);
  EXPECT_EQ(ClassifyImage(tar).status().code(), StatusCode::kInvalidArgument);
  std::filesystem::create_directories(tmp.path() / "emptydir");
  EXPECT_EQ(ClassifyImage((tmp.path() / "emptydir").string()).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ClassifyImage("/dev/null").status().code(), StatusCode::kInvalidArgument);
}

TEST(ClassifyImageTest, NeitherPathNorRegistryName) {
  EXPECT_EQ(ClassifyImage("").status().code(), StatusCode::kInvalidArgument);
  Result<ImageKind> kind = ClassifyImage("my image.sqsh");
  ASSERT_FALSE(kind.ok());
  EXPECT_NE(kind.status().message().find("image 'my image.sqsh'"), std::string::npos);
}

TEST(RegistrySourceTest, TranslatesEnrootForms) {
  EXPECT_EQ(RegistrySource("ubuntu:22.04").value(), "docker://ubuntu:22.04");
  EXPECT_EQ(RegistrySource("nvcr.io#nvidia/pytorch:24.01-py3").value(),
            "docker://nvcr.io/nvidia/pytorch:24.01-py3");
  EXPECT_EQ(RegistrySource("docker://nvcr.io#nvidia/pytorch:24.01-py3").value(),
            "docker://nvcr.io/nvidia/pytorch:24.01-py3");
  EXPECT_EQ(RegistrySource("docker://quay.io/fedora/fedora:40").value(),
            "docker://quay.io/fedora/fedora:40");
  EXPECT_EQ(RegistrySource("busybox@sha256:abcd").value(), "docker://busybox@sha256:abcd");
}

TEST(RegistrySourceTest, RefusesCredentialsAndMalformedReferences) {
  Result<std::string> user = RegistrySource("alice@nvcr.io#nvidia/pytorch:24.01-py3");
  ASSERT_FALSE(user.ok());
  EXPECT_NE(user.status().message().find("USER@"), std::string::npos);
  EXPECT_FALSE(RegistrySource("nvcr.io#a#b").ok());
  EXPECT_FALSE(RegistrySource("#ubuntu").ok());
  EXPECT_FALSE(RegistrySource("/abs/path").ok());
}

}  // namespace
}  // namespace rota::noded::container
