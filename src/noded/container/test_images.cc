#include "noded/container/test_images.h"

#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "noded/container/image_digest.h"

namespace rota::noded::container::testing {
namespace {

using Json = nlohmann::json;

void Check(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error(what);
}

// Writes `data` as a blob of `layout`; returns its digest.
std::string WriteBlob(const std::string& layout, const std::string& data) {
  const std::string hex = Sha256Hex(data);
  std::filesystem::create_directories(layout + "/blobs/sha256");
  WriteWholeFile(layout + "/blobs/sha256/" + hex, data);
  return "sha256:" + hex;
}

std::string TarBytes(const std::vector<TarEntry>& entries, bool gzip, const std::string& scratch) {
  WriteTar(scratch, entries, gzip);
  std::string data = ReadWholeFile(scratch);
  std::filesystem::remove(scratch);
  return data;
}

}  // namespace

std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

void WriteWholeFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << data;
  Check(out.good(), "cannot write " + path);
}

void WriteTar(const std::string& path, const std::vector<TarEntry>& entries, bool gzip) {
  archive* a = archive_write_new();
  archive_write_set_format_pax_restricted(a);
  if (gzip) archive_write_add_filter_gzip(a);
  Check(archive_write_open_filename(a, path.c_str()) == ARCHIVE_OK, "cannot write " + path);
  for (const TarEntry& e : entries) {
    archive_entry* entry = archive_entry_new();
    archive_entry_set_pathname(entry, e.path.c_str());
    archive_entry_set_perm(entry, e.mode);
    archive_entry_set_mtime(entry, 1700000000, 0);
    switch (e.type) {
      case TarEntry::Type::kFile:
        archive_entry_set_filetype(entry, AE_IFREG);
        archive_entry_set_size(entry, static_cast<la_int64_t>(e.data.size()));
        break;
      case TarEntry::Type::kDir:
        archive_entry_set_filetype(entry, AE_IFDIR);
        break;
      case TarEntry::Type::kSymlink:
        archive_entry_set_filetype(entry, AE_IFLNK);
        archive_entry_set_symlink(entry, e.data.c_str());
        break;
      case TarEntry::Type::kHardlink:
        archive_entry_set_filetype(entry, AE_IFREG);
        archive_entry_set_hardlink(entry, e.data.c_str());
        break;
      case TarEntry::Type::kCharDevice:
        archive_entry_set_filetype(entry, AE_IFCHR);
        archive_entry_set_rdev(entry, makedev(1, 3));
        break;
    }
    Check(archive_write_header(a, entry) == ARCHIVE_OK, "cannot add " + e.path);
    if (e.type == TarEntry::Type::kFile && !e.data.empty()) {
      archive_write_data(a, e.data.data(), e.data.size());
    }
    archive_entry_free(entry);
  }
  archive_write_close(a);
  archive_write_free(a);
}

std::vector<TarEntry> BaseLayer(const std::string& pretty_name) {
  using T = TarEntry::Type;
  const std::string busybox = ReadWholeFile(kBusybox);
  return {
      {"bin", T::kDir, "", 0755},
      {"bin/busybox", T::kFile, busybox, 0755},
      {"bin/sh", T::kSymlink, "busybox", 0777},
      {"bin/ls", T::kHardlink, "bin/busybox", 0755},
      {"bin/su-test", T::kFile, "#!/bin/sh\n", 04755},
      {"etc", T::kDir, "", 0755},
      {"etc/os-release", T::kFile, "NAME=rota-test\nPRETTY_NAME=\"" + pretty_name + "\"\n", 0644},
      {"etc/motd", T::kFile, "from the base layer\n", 0644},
      {"opt", T::kDir, "", 0755},
      {"opt/old", T::kFile, "from the base layer\n", 0644},
      {"opt/olddir", T::kDir, "", 0755},
      {"opt/olddir/file", T::kFile, "from the base layer\n", 0644},
      {"ro", T::kDir, "", 0555},
      {"ro/base", T::kFile, "base\n", 0444},
      {"dev", T::kDir, "", 0755},
      {"dev/null", T::kCharDevice, "", 0666},
  };
}

std::vector<TarEntry> TopLayer() {
  using T = TarEntry::Type;
  return {
      {"etc", T::kDir, "", 0755},
      {"etc/.wh.motd", T::kFile, "", 0644},
      {"opt", T::kDir, "", 0755},
      {"opt/new", T::kFile, "from the top layer\n", 0644},
      {"opt/.wh..wh..opq", T::kFile, "", 0644},
      {"opt/later", T::kFile, "also from the top layer\n", 0644},
      {"ro/added", T::kFile, "top\n", 0644},
  };
}

std::string ImageConfigJson() {
  Json config = {{"architecture", "amd64"},
                 {"os", "linux"},
                 {"config",
                  {{"Env", {"PATH=/bin", "ROTA_TEST=1"}},
                   {"Entrypoint", {"/bin/sh", "-c"}},
                   {"Cmd", {"echo hello"}},
                   {"WorkingDir", "/opt"}}},
                 {"rootfs", {{"type", "layers"}, {"diff_ids", Json::array()}}}};
  return config.dump();
}

std::string ImageBuilder::Squashfs(const std::string& name, const std::string& pretty_name) {
  const std::string root = (dir_ / (name + ".rootfs")).string();
  std::filesystem::create_directories(root + "/bin");
  std::filesystem::create_directories(root + "/etc");
  std::filesystem::copy_file(kBusybox, root + "/bin/busybox",
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::create_symlink("busybox", root + "/bin/sh");
  WriteWholeFile(root + "/etc/os-release", "NAME=rota-test\nPRETTY_NAME=\"" + pretty_name + "\"\n");
  const std::string image = (dir_ / (name + ".sqsh")).string();
  // A device node too, which an ordinary user's unsquashfs cannot make.
  const std::string command = "mksquashfs '" + root + "' '" + image +
                              "' -noappend -quiet -no-progress -p 'dev d 755 0 0' "
                              "-p 'dev/null c 666 0 0 1 3' >/dev/null 2>&1";
  Check(std::system(command.c_str()) == 0, "mksquashfs failed");
  std::filesystem::remove_all(root);
  return image;
}

std::string ImageBuilder::OciLayout(const std::string& name,
                                    const std::vector<std::vector<TarEntry>>& layers) {
  const std::string layout = (dir_ / name).string();
  std::filesystem::create_directories(layout);
  WriteWholeFile(layout + "/oci-layout", R"({"imageLayoutVersion":"1.0.0"})");
  const std::string config = ImageConfigJson();
  Json manifest = {{"schemaVersion", 2},
                   {"mediaType", "application/vnd.oci.image.manifest.v1+json"},
                   {"config",
                    {{"mediaType", "application/vnd.oci.image.config.v1+json"},
                     {"digest", WriteBlob(layout, config)},
                     {"size", config.size()}}},
                   {"layers", Json::array()}};
  for (const std::vector<TarEntry>& layer : layers) {
    const std::string data = TarBytes(layer, /*gzip=*/true, layout + "/layer.tmp");
    manifest["layers"].push_back({{"mediaType", "application/vnd.oci.image.layer.v1.tar+gzip"},
                                  {"digest", WriteBlob(layout, data)},
                                  {"size", data.size()}});
  }
  const std::string manifest_text = manifest.dump();
  Json index = {{"schemaVersion", 2},
                {"mediaType", "application/vnd.oci.image.index.v1+json"},
                {"manifests",
                 {{{"mediaType", "application/vnd.oci.image.manifest.v1+json"},
                   {"digest", WriteBlob(layout, manifest_text)},
                   {"size", manifest_text.size()},
                   {"annotations", {{"org.opencontainers.image.ref.name", "latest"}}}}}}};
  WriteWholeFile(layout + "/index.json", index.dump());
  return layout;
}

std::string ImageBuilder::DockerArchive(const std::string& name) {
  using T = TarEntry::Type;
  const std::string scratch = (dir_ / (name + ".layer.tmp")).string();
  const std::string base = TarBytes(BaseLayer(), /*gzip=*/false, scratch);
  const std::string top = TarBytes(TopLayer(), /*gzip=*/false, scratch);
  Json manifest = Json::array({{{"Config", "0123abcd.json"},
                                {"RepoTags", {"rota-test:latest"}},
                                {"Layers", {"aaaa/layer.tar", "bbbb/layer.tar"}}}});
  const std::string archive = (dir_ / (name + ".tar")).string();
  WriteTar(archive,
           {{"aaaa", T::kDir, "", 0755},
            {"aaaa/layer.tar", T::kFile, base, 0644},
            {"bbbb", T::kDir, "", 0755},
            {"bbbb/layer.tar", T::kFile, top, 0644},
            {"0123abcd.json", T::kFile, ImageConfigJson(), 0644},
            {"manifest.json", T::kFile, manifest.dump(), 0644},
            {"repositories", T::kFile, R"({"rota-test":{"latest":"bbbb"}})", 0644}},
           /*gzip=*/false);
  return archive;
}

std::string LayerBlobPath(const std::string& layout, int index) {
  Json top = Json::parse(ReadWholeFile(layout + "/index.json"));
  const std::string manifest_digest = top["manifests"][0]["digest"];
  Json manifest = Json::parse(ReadWholeFile(layout + "/blobs/sha256/" + manifest_digest.substr(7)));
  const std::string digest = manifest["layers"][index]["digest"];
  return layout + "/blobs/sha256/" + digest.substr(7);
}

}  // namespace rota::noded::container::testing
