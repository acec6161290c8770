#include "noded/stepd/step_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/strings.h"

namespace rota::noded {
namespace {

std::string JobFile(const std::string& spool_dir, uint32_t job_id, const char* suffix) {
  return spool_dir + "/job" + std::to_string(job_id) + suffix;
}

constexpr const char* kRecordSuffix = ".step";

Result<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot open " + path);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

}  // namespace

std::string StepRecordPath(const std::string& spool_dir, uint32_t job_id) {
  return JobFile(spool_dir, job_id, kRecordSuffix);
}
std::string StepSocketPath(const std::string& spool_dir, uint32_t job_id) {
  return JobFile(spool_dir, job_id, ".sock");
}
std::string StepOutcomePath(const std::string& spool_dir, uint32_t job_id) {
  return JobFile(spool_dir, job_id, ".exit");
}

Status WriteFileAtomically(const std::string& path, const std::string& text, bool durable) {
  const std::string temporary = path + ".tmp";
  int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return IoError("cannot create " + temporary + ": " + std::strerror(errno));
  // A fixed mode whatever the umask: the files hold job records.
  bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
            fchmod(fd, 0600) == 0 && (!durable || fsync(fd) == 0);
  int saved = errno;
  close(fd);
  if (!ok || rename(temporary.c_str(), path.c_str()) != 0) {
    if (ok) saved = errno;
    unlink(temporary.c_str());
    return IoError("cannot write " + path + ": " + std::strerror(saved));
  }
  return Status::Ok();
}

Status WriteStepRecord(const std::string& spool_dir, const wire::StepRecord& record) {
  // Not synced to disk: the record describes processes, and a machine crash
  // that could lose it ends them too (the controller then learns from the
  // node's registration that the job is gone). A rotad crash loses nothing
  // that was written.
  return WriteFileAtomically(StepRecordPath(spool_dir, record.launch().job().job_id()),
                             record.SerializeAsString(), /*durable=*/false);
}

Result<wire::StepRecord> ReadStepRecord(const std::string& spool_dir, uint32_t job_id) {
  const std::string path = StepRecordPath(spool_dir, job_id);
  Result<std::string> text = ReadWholeFile(path);
  if (!text.ok()) return text.status();
  wire::StepRecord record;
  if (!record.ParseFromString(*text) || record.launch().job().job_id() != job_id) {
    return InvalidArgument("malformed step record " + path);
  }
  return record;
}

Status WriteStepOutcome(const std::string& spool_dir, const wire::JobExitedRequest& outcome) {
  return WriteFileAtomically(StepOutcomePath(spool_dir, outcome.job_id()),
                             outcome.SerializeAsString());
}

std::optional<wire::JobExitedRequest> ReadStepOutcome(const std::string& spool_dir,
                                                      uint32_t job_id) {
  Result<std::string> text = ReadWholeFile(StepOutcomePath(spool_dir, job_id));
  if (!text.ok()) return std::nullopt;
  wire::JobExitedRequest outcome;
  if (!outcome.ParseFromString(*text) || outcome.job_id() != job_id) return std::nullopt;
  return outcome;
}

std::vector<uint32_t> ListStepJobs(const std::string& spool_dir) {
  namespace fs = std::filesystem;
  std::vector<uint32_t> jobs;
  std::error_code ec;
  const std::string_view suffix = kRecordSuffix;
  for (const fs::directory_entry& e : fs::directory_iterator(spool_dir, ec)) {
    std::string name = e.path().filename().string();
    if (name.size() <= 3 + suffix.size() || name.rfind("job", 0) != 0 ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
      continue;
    }
    std::optional<uint64_t> id = ParseUint(name.substr(3, name.size() - 3 - suffix.size()));
    if (id && *id > 0 && *id <= UINT32_MAX) jobs.push_back(static_cast<uint32_t>(*id));
  }
  std::sort(jobs.begin(), jobs.end());
  return jobs;
}

void RemoveStepFiles(const std::string& spool_dir, uint32_t job_id) {
  // The record before the outcome: a crash in between leaves a stray exit
  // file, never a record without its exit (which would read as a lost job).
  unlink(StepSocketPath(spool_dir, job_id).c_str());
  unlink(StepRecordPath(spool_dir, job_id).c_str());
  unlink(StepOutcomePath(spool_dir, job_id).c_str());
}

}  // namespace rota::noded
