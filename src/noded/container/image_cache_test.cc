#include "noded/container/image_cache.h"

#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <thread>

#include "noded/container/test_images.h"
#include "testing/temp_dir.h"

namespace rota::noded::container {
namespace {

using testing::ImageBuilder;
using testing::ReadWholeFile;
namespace fs = std::filesystem;

std::string Importer() {
  const char* dir = std::getenv("ROTA_BIN_DIR");
  return std::string(dir != nullptr ? dir : ROTA_BINARY_DIR "/bin") + "/rota-image";
}

bool Exists(const fs::path& p) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(p, ec));
}

struct stat StatOf(const fs::path& p) {
  struct stat st {};
  lstat(p.c_str(), &st);
  return st;
}

// An ordinary user made for one test (useradd), removed after it.
class TestUser {
 public:
  TestUser() : name_("rotaimg" + std::to_string(getpid() % 100000)) {
    made_ = std::system(("useradd -M -N -s /bin/sh " + name_ + " 2>/dev/null").c_str()) == 0;
    if (passwd* pw = getpwnam(name_.c_str()); made_ && pw != nullptr) {
      uid_ = pw->pw_uid;
      gid_ = pw->pw_gid;
    }
  }
  ~TestUser() {
    if (made_) std::system(("userdel " + name_ + " 2>/dev/null").c_str());
  }
  bool ok() const { return made_ && uid_ != 0; }
  uid_t uid() const { return uid_; }
  gid_t gid() const { return gid_; }

 private:
  std::string name_;
  bool made_ = false;
  uid_t uid_ = 0;
  gid_t gid_ = 0;
};

class ImageCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Another user's importer must reach the images (a TempDir is 0700).
    fs::permissions(tmp_.path(), fs::perms(0755));
    cache_dir_ = (tmp_.path() / "cache").string();
  }
  Result<CachedImage> Acquire(ImageCache& cache, const std::string& ref) {
    return cache.Acquire(ref, getuid(), getgid(), {});
  }
  fs::path EntryDir(const CachedImage& image) { return fs::path(image.rootfs).parent_path(); }

  rota::testing::TempDir tmp_;
  std::string cache_dir_;
  ImageBuilder images_{tmp_.path()};
};

TEST_F(ImageCacheTest, MissThenHit) {
  const std::string image = images_.Squashfs("image");
  ImageCache cache(cache_dir_, 0, Importer());
  Result<CachedImage> first = Acquire(cache, image);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_FALSE(first->hit);
  EXPECT_EQ(first->rootfs,
            cache_dir_ + "/" + std::to_string(getuid()) + "/" + first->key + "/rootfs");
  EXPECT_NE(ReadWholeFile(fs::path(first->rootfs) / "etc/os-release").find(testing::kPrettyName),
            std::string::npos);
  Result<CachedImage> second = Acquire(cache, image);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_TRUE(second->hit);
  EXPECT_EQ(second->rootfs, first->rootfs);
  EXPECT_EQ(second->key, first->key);
  EXPECT_GT(cache.TotalBytes(), fs::file_size(testing::kBusybox));
  cache.Release(getuid(), first->key);
  cache.Release(getuid(), second->key);
  // Nothing else is left in the user's directory.
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(EntryDir(*first).parent_path())) {
    names.push_back(e.path().filename());
  }
  EXPECT_EQ(names, std::vector<std::string>{first->key});
}

TEST_F(ImageCacheTest, OciLayoutGivesItsConfig) {
  const std::string layout = images_.OciLayout("layout");
  ImageCache cache(cache_dir_, 0, Importer());
  Result<CachedImage> image = Acquire(cache, layout);
  ASSERT_TRUE(image.ok()) << image.status().ToString();
  EXPECT_EQ(image->config.working_dir, "/opt");
  EXPECT_EQ(image->config.entrypoint, (std::vector<std::string>{"/bin/sh", "-c"}));
  EXPECT_FALSE(Exists(fs::path(image->rootfs) / "etc/motd"));
  Result<CachedImage> again = Acquire(cache, layout);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->hit);
  EXPECT_EQ(again->config, image->config);
}

TEST_F(ImageCacheTest, ChangedFileIsANewImage) {
  const std::string image = images_.Squashfs("image");
  ImageCache cache(cache_dir_, 0, Importer());
  Result<CachedImage> first = Acquire(cache, image);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  images_.Squashfs("image", "Rota Test Linux 8");  // Rebuilt in place.
  Result<CachedImage> second = Acquire(cache, image);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_FALSE(second->hit);
  EXPECT_NE(second->key, first->key);
  EXPECT_NE(ReadWholeFile(fs::path(second->rootfs) / "etc/os-release").find("Rota Test Linux 8"),
            std::string::npos);
}

TEST_F(ImageCacheTest, ImportsAsTheUser) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to switch users";
  TestUser user;
  ASSERT_TRUE(user.ok()) << "useradd failed";
  const std::string layout = images_.OciLayout("layout");
  ImageCache cache(cache_dir_, 0, Importer());
  Result<CachedImage> image = cache.Acquire(layout, user.uid(), user.gid(), {user.gid()});
  ASSERT_TRUE(image.ok()) << image.status().ToString();
  for (const char* path : {"", "bin/busybox", "etc/os-release", "ro", "ro/added"}) {
    EXPECT_EQ(StatOf(fs::path(image->rootfs) / path).st_uid, user.uid()) << path;
  }
  EXPECT_EQ(StatOf(fs::path(image->rootfs) / "ro").st_mode & 07777, 0555u);
  const struct stat user_dir = StatOf(EntryDir(*image).parent_path());
  EXPECT_EQ(user_dir.st_uid, user.uid());
  EXPECT_EQ(user_dir.st_mode & 07777, 0700u);
  EXPECT_EQ(StatOf(cache_dir_).st_mode & 07777, 0711u);

  // A squashfs with a device node: skipped, as the user cannot make it.
  const std::string squashfs = images_.Squashfs("image");
  Result<CachedImage> unpacked = cache.Acquire(squashfs, user.uid(), user.gid(), {user.gid()});
  ASSERT_TRUE(unpacked.ok()) << unpacked.status().ToString();
  EXPECT_EQ(StatOf(fs::path(unpacked->rootfs) / "bin/busybox").st_uid, user.uid());
  EXPECT_FALSE(Exists(fs::path(unpacked->rootfs) / "dev/null"));
  cache.Release(user.uid(), unpacked->key);

  // What the user may not read, the user cannot import.
  const std::string secret = images_.Squashfs("secret");
  fs::permissions(secret, fs::perms(0600));
  Result<CachedImage> refused = cache.Acquire(secret, user.uid(), user.gid(), {user.gid()});
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(refused.status().message().starts_with("image '" + secret + "'"))
      << refused.status().message();
  cache.Release(user.uid(), image->key);
}

TEST_F(ImageCacheTest, EvictsTheLeastRecentlyUsedEntryNotInUse) {
  const std::string a = images_.Squashfs("a", "Image A");
  const std::string b = images_.Squashfs("b", "Image B");
  const std::string c = images_.Squashfs("c", "Image C");
  uint64_t size = 0;
  std::string a_rootfs;
  {
    ImageCache probe(cache_dir_, 0, Importer());
    Result<CachedImage> image = Acquire(probe, a);
    ASSERT_TRUE(image.ok()) << image.status().ToString();
    probe.Release(getuid(), image->key);
    size = probe.TotalBytes();
    a_rootfs = image->rootfs;
  }
  // Room for two and a half: a restart keeps A and when it was used.
  ImageCache cache(cache_dir_, size * 2 + size / 2, Importer());
  EXPECT_EQ(cache.TotalBytes(), size);
  Result<CachedImage> image_b = Acquire(cache, b);
  ASSERT_TRUE(image_b.ok()) << image_b.status().ToString();
  cache.Release(getuid(), image_b->key);
  Result<CachedImage> image_c = Acquire(cache, c);  // Held from here on.
  ASSERT_TRUE(image_c.ok()) << image_c.status().ToString();
  EXPECT_FALSE(Exists(a_rootfs)) << "A was the least recently used";
  EXPECT_TRUE(Exists(image_b->rootfs));
  EXPECT_TRUE(Exists(image_c->rootfs));

  // B used again: C, in use, is now the older, and stays.
  Result<CachedImage> again_b = Acquire(cache, b);
  ASSERT_TRUE(again_b.ok());
  EXPECT_TRUE(again_b->hit);
  cache.Release(getuid(), again_b->key);
  Result<CachedImage> image_a = Acquire(cache, a);
  ASSERT_TRUE(image_a.ok()) << image_a.status().ToString();
  EXPECT_FALSE(image_a->hit);
  EXPECT_TRUE(Exists(image_c->rootfs));
  EXPECT_FALSE(Exists(image_b->rootfs));
  EXPECT_TRUE(Exists(image_a->rootfs));
  EXPECT_LE(cache.TotalBytes(), size * 2 + size / 2);
}

TEST_F(ImageCacheTest, EntriesInUseAreNeverEvicted) {
  const std::string a = images_.Squashfs("a", "Image A");
  const std::string b = images_.Squashfs("b", "Image B");
  const std::string c = images_.Squashfs("c", "Image C");
  ImageCache cache(cache_dir_, 1, Importer());  // Every image is over the limit.
  Result<CachedImage> image_a = Acquire(cache, a);
  ASSERT_TRUE(image_a.ok()) << image_a.status().ToString();
  Result<CachedImage> image_b = Acquire(cache, b);
  ASSERT_TRUE(image_b.ok()) << image_b.status().ToString();
  EXPECT_TRUE(Exists(image_a->rootfs));
  EXPECT_TRUE(Exists(image_b->rootfs));
  cache.Release(getuid(), image_a->key);
  cache.Release(getuid(), image_b->key);
  Result<CachedImage> image_c = Acquire(cache, c);
  ASSERT_TRUE(image_c.ok()) << image_c.status().ToString();
  EXPECT_FALSE(Exists(image_a->rootfs));
  EXPECT_FALSE(Exists(image_b->rootfs));
  EXPECT_TRUE(Exists(image_c->rootfs));  // Its own import does not evict it.
}

TEST_F(ImageCacheTest, PartialImportsAreRemovedAtStartAndEntriesKept) {
  const std::string image = images_.Squashfs("image");
  std::string rootfs;
  {
    ImageCache cache(cache_dir_, 0, Importer());
    Result<CachedImage> first = Acquire(cache, image);
    ASSERT_TRUE(first.ok()) << first.status().ToString();
    rootfs = first->rootfs;
  }
  const fs::path user_dir = fs::path(rootfs).parent_path().parent_path();
  const std::string key(64, 'a');
  tmp_.Write((user_dir / (key + ".partial-123-1/rootfs/bin/x")).string(), "half\n");
  fs::create_directories(user_dir / (std::string(64, 'b') + "/rootfs"));  // No image.json.
  ImageCache cache(cache_dir_, 0, Importer());
  EXPECT_FALSE(Exists(user_dir / (key + ".partial-123-1")));
  EXPECT_FALSE(Exists(user_dir / std::string(64, 'b')));
  Result<CachedImage> again = Acquire(cache, image);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(again->hit);
  EXPECT_EQ(again->rootfs, rootfs);
}

TEST_F(ImageCacheTest, ConcurrentAcquiresImportOnce) {
  const std::string image = images_.OciLayout("layout");
  ImageCache cache(cache_dir_, 0, Importer());
  Result<CachedImage> results[2] = {Internal("not run"), Internal("not run")};
  std::thread first([&] { results[0] = Acquire(cache, image); });
  std::thread second([&] { results[1] = Acquire(cache, image); });
  first.join();
  second.join();
  ASSERT_TRUE(results[0].ok()) << results[0].status().ToString();
  ASSERT_TRUE(results[1].ok()) << results[1].status().ToString();
  EXPECT_EQ(results[0]->hit + results[1]->hit, 1) << "exactly one import";
  EXPECT_EQ(results[0]->rootfs, results[1]->rootfs);
  EXPECT_EQ(results[0]->config, results[1]->config);
}

TEST_F(ImageCacheTest, ErrorsNameTheImage) {
  ImageCache cache(cache_dir_, 0, Importer());
  const std::string junk = tmp_.Write("junk.bin", "no image\n");
  Result<CachedImage> bad = Acquire(cache, junk);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "image '" + junk + "' is not a squashfs file, an OCI image layout or a docker archive");
  EXPECT_EQ(Acquire(cache, "/nonexistent/image.sqsh").status().code(), StatusCode::kNotFound);

  // The importer's own message, named once: PATH (passed on) has no skopeo.
  fs::create_directories(tmp_.path() / "emptybin");
  const std::string saved = std::getenv("PATH") != nullptr ? std::getenv("PATH") : "";
  setenv("PATH", (tmp_.path() / "emptybin").c_str(), 1);
  Result<CachedImage> pull = Acquire(cache, "ubuntu:22.04");
  setenv("PATH", saved.c_str(), 1);
  ASSERT_FALSE(pull.ok());
  EXPECT_EQ(pull.status().message(),
            "image 'ubuntu:22.04' is in a registry, and pulling needs skopeo, which is not "
            "installed on this node (or import it to a squashfs file first)");
  // A failed import leaves nothing behind.
  const fs::path user_dir = fs::path(cache_dir_) / std::to_string(getuid());
  EXPECT_TRUE(!Exists(user_dir) || fs::is_empty(user_dir));
  EXPECT_EQ(cache.TotalBytes(), 0u);
}

}  // namespace
}  // namespace rota::noded::container
