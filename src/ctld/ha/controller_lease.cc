#include "ctld/ha/controller_lease.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace rota::ctld {
namespace {

Result<LeaseRecord> ReadRecord(const std::string& path) {
  std::ifstream in(path);
  LeaseRecord record;
  if (!in) {
    if (errno == ENOENT) return record;  // Never held
    return IoError("cannot read " + path + ": " + std::strerror(errno));
  }
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json json = nlohmann::json::parse(text.str(), nullptr, false);
  if (json.is_discarded() || !json.is_object()) {
    return Status(StatusCode::kCorruption, path + " is not a controller lease");
  }
  record.holder = json.value("holder", "");
  record.expires_ms = json.value("expires_ms", int64_t{0});
  record.wanted_by = json.value("wanted_by", "");
  record.wanted_until_ms = json.value("wanted_until_ms", int64_t{0});
  return record;
}

Status WriteRecord(const std::string& path, const LeaseRecord& record) {
  const std::string temporary = path + ".new";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << nlohmann::json{{"holder", record.holder},
                          {"expires_ms", record.expires_ms},
                          {"wanted_by", record.wanted_by},
                          {"wanted_until_ms", record.wanted_until_ms}}
               .dump()
        << "\n";
    out.flush();
    if (!out) return IoError("cannot write " + temporary + ": " + std::strerror(errno));
  }
  int fd = open(temporary.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    fsync(fd);
    close(fd);
  }
  if (rename(temporary.c_str(), path.c_str()) != 0) {
    return IoError("cannot replace " + path + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

}  // namespace

ControllerLease::ControllerLease(std::string state_dir, std::string me,
                                 std::chrono::milliseconds length, std::function<int64_t()> now_ms)
    : path_(state_dir + "/controller.lease"),
      lock_path_(state_dir + "/controller.lease.lock"),
      me_(std::move(me)),
      length_(length),
      now_ms_(std::move(now_ms)) {}

Status ControllerLease::Update(const std::function<bool(LeaseRecord&)>& change) {
  int fd = open(lock_path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return IoError("cannot open " + lock_path_ + ": " + std::strerror(errno));
  while (flock(fd, LOCK_EX) != 0) {
    if (errno != EINTR) {
      const int saved = errno;
      close(fd);
      return IoError("cannot lock " + lock_path_ + ": " + std::strerror(saved));
    }
  }
  Status done = Status::Ok();
  Result<LeaseRecord> record = ReadRecord(path_);
  if (!record.ok() && record.status().code() == StatusCode::kCorruption) {
    // A lease that does not parse (edited by hand, torn by a file system
    // without atomic renames) counts as held, by nobody known, for a
    // lease's length from its last change; after that it is replaced.
    struct stat st {};
    const int64_t changed_ms =
        stat(path_.c_str(), &st) == 0
            ? static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1'000'000
            : 0;
    if (now_ms_() >= changed_ms + length_.count()) record = LeaseRecord{};
  }
  if (!record.ok()) {
    done = record.status();
  } else if (change(*record)) {
    done = WriteRecord(path_, *record);
  }
  close(fd);  // Releases the lock.
  return done;
}

Result<bool> ControllerLease::TryTake() {
  bool held = false;
  Status s = Update([&](LeaseRecord& record) {
    const int64_t now = now_ms_();
    const bool free = record.holder.empty() || record.expires_ms <= now || record.holder == me_;
    const bool promised_elsewhere = !record.wanted_by.empty() && record.wanted_by != me_ &&
                                    record.wanted_until_ms > now && record.holder != me_;
    if (!free || promised_elsewhere) return false;
    record.holder = me_;
    record.expires_ms = now + length_.count();
    if (record.wanted_by == me_ || record.wanted_until_ms <= now) {
      record.wanted_by.clear();
      record.wanted_until_ms = 0;
    }
    held = true;
    return true;
  });
  if (!s.ok()) return s;
  return held;
}

Result<bool> ControllerLease::Renew() {
  bool kept = false;
  Status s = Update([&](LeaseRecord& record) {
    if (record.holder != me_) return false;
    const int64_t now = now_ms_();
    if (!record.wanted_by.empty() && record.wanted_by != me_ && record.wanted_until_ms > now) {
      return false;
    }
    record.expires_ms = now + length_.count();
    kept = true;
    return true;
  });
  if (!s.ok()) return s;
  return kept;
}

Status ControllerLease::Release() {
  return Update([&](LeaseRecord& record) {
    if (record.holder != me_) return false;
    record.holder.clear();
    record.expires_ms = 0;
    return true;
  });
}

Status ControllerLease::Want() {
  return Update([&](LeaseRecord& record) {
    if (record.holder == me_) return false;
    record.wanted_by = me_;
    record.wanted_until_ms = now_ms_() + length_.count();
    return true;
  });
}

Result<LeaseRecord> ControllerLease::Read() const { return ReadRecord(path_); }

}  // namespace rota::ctld
