// A minimal PMI-2 client for the srun --mpi=pmi2 tests, written against the
// wire format alone (it shares no code with the server): it reads PMI_FD,
// PMI_RANK and PMI_SIZE, does the handshake and fullinit, puts a value under
// its rank's key, fences, reads every other rank's value, fences again and
// finalizes. Prints one line:
//   rank=R size=N jobid=J map=M saw=K/N-1 [ok|MISMATCH ...]
// Exits 0 when every value matched. With the argument "abort", rank 1 calls
// abort after fullinit instead (the other ranks wait in the fence).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace {

int pmi_fd = -1;

void Die(const std::string& why) {
  std::printf("error: %s\n", why.c_str());
  std::fflush(stdout);
  std::exit(3);
}

void WriteAll(const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = write(pmi_fd, s.data() + off, s.size() - off);
    if (n <= 0) Die("write to PMI_FD failed");
    off += static_cast<size_t>(n);
  }
}

std::string ReadExactly(size_t n) {
  std::string out(n, '\0');
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(pmi_fd, out.data() + got, n - got);
    if (r <= 0) Die("PMI_FD closed");
    got += static_cast<size_t>(r);
  }
  return out;
}

// Sends "cmd=NAME;k=v;..." with its 6-character length; ';' in values doubled.
void Send(const std::string& cmd, const std::vector<std::pair<std::string, std::string>>& kv) {
  std::string body = "cmd=" + cmd + ";";
  for (const auto& [k, v] : kv) {
    body += k + "=";
    for (char c : v) body += (c == ';') ? std::string(";;") : std::string(1, c);
    body += ";";
  }
  char len[8];
  std::snprintf(len, sizeof len, "%-6zu", body.size());
  WriteAll(std::string(len, 6) + body);
}

// Reads one answer; returns the value of `key` in it ("" when absent) and
// checks it is the answer `cmd` with rc=0.
std::vector<std::pair<std::string, std::string>> Receive(const std::string& cmd) {
  std::string len = ReadExactly(6);
  std::string body = ReadExactly(std::strtoul(len.c_str(), nullptr, 10));
  std::vector<std::pair<std::string, std::string>> kv;
  size_t i = 0;
  while (i < body.size()) {
    size_t eq = body.find('=', i);
    if (eq == std::string::npos) Die("bad answer " + body);
    std::string k = body.substr(i, eq - i), v;
    size_t j = eq + 1;
    for (; j < body.size(); ++j) {
      if (body[j] == ';' && j + 1 < body.size() && body[j + 1] == ';') {
        v += ';';
        ++j;
      } else if (body[j] == ';') {
        break;
      } else {
        v += body[j];
      }
    }
    kv.emplace_back(k, v);
    i = j + 1;
  }
  if (kv.empty() || kv[0].second != cmd) Die("expected " + cmd + ", got " + body);
  for (const auto& [k, v] : kv) {
    if (k == "rc" && v != "0") Die(cmd + " failed: " + body);
  }
  return kv;
}

std::string Value(const std::vector<std::pair<std::string, std::string>>& kv,
                  const std::string& key) {
  for (const auto& [k, v] : kv) {
    if (k == key) return v;
  }
  return "";
}

std::string ValueOf(int rank) { return "value;of=" + std::to_string(rank * 7 + 1); }

}  // namespace

int main(int argc, char** argv) {
  const char* fd = std::getenv("PMI_FD");
  const char* rank_text = std::getenv("PMI_RANK");
  const char* size_text = std::getenv("PMI_SIZE");
  if (fd == nullptr || rank_text == nullptr || size_text == nullptr) Die("no PMI_FD/RANK/SIZE");
  pmi_fd = std::atoi(fd);
  const int env_rank = std::atoi(rank_text);
  const int env_size = std::atoi(size_text);
  const bool abort_test = argc > 1 && std::strcmp(argv[1], "abort") == 0;

  // The handshake is a PMI-1 line.
  WriteAll("cmd=init pmi_version=2 pmi_subversion=0\n");
  std::string line;
  while (line.empty() || line.back() != '\n') line += ReadExactly(1);
  if (line.find("cmd=response_to_init") != 0 || line.find("rc=0") == std::string::npos) {
    Die("bad init answer " + line);
  }
  Send("fullinit", {{"pmijobid", std::getenv("PMI_JOBID") ? std::getenv("PMI_JOBID") : ""},
                    {"pmirank", rank_text},
                    {"threaded", "FALSE"}});
  auto init = Receive("fullinit-response");
  const int rank = std::atoi(Value(init, "rank").c_str());
  const int size = std::atoi(Value(init, "size").c_str());
  if (rank != env_rank || size != env_size) Die("fullinit disagrees with PMI_RANK/PMI_SIZE");
  if (abort_test && rank == 1) {
    Send("abort", {{"isworldabort", "TRUE"}, {"msg", "rank 1 gives up"}});
    sleep(30);
    return 4;
  }
  Send("job-getid", {});
  const std::string jobid = Value(Receive("job-getid-response"), "jobid");
  Send("info-getjobattr", {{"key", "PMI_process_mapping"}});
  const std::string map = Value(Receive("info-getjobattr-response"), "value");

  Send("kvs-put", {{"key", "rank-" + std::to_string(rank)}, {"value", ValueOf(rank)}});
  Receive("kvs-put-response");
  Send("kvs-fence", {});
  Receive("kvs-fence-response");
  int saw = 0;
  std::string wrong;
  for (int r = 0; r < size; ++r) {
    if (r == rank) continue;
    Send("kvs-get", {{"jobid", jobid}, {"srcid", "-1"}, {"key", "rank-" + std::to_string(r)}});
    auto got = Receive("kvs-get-response");
    if (Value(got, "found") == "TRUE" && Value(got, "value") == ValueOf(r)) {
      ++saw;
    } else {
      wrong += " rank-" + std::to_string(r) + "=" + Value(got, "value");
    }
  }
  // A second fence: rounds follow each other.
  Send("kvs-fence", {});
  Receive("kvs-fence-response");
  Send("finalize", {});
  Receive("finalize-response");
  std::printf("rank=%d size=%d jobid=%s map=%s saw=%d/%d %s\n", rank, size, jobid.c_str(),
              map.c_str(), saw, size - 1, wrong.empty() ? "ok" : ("MISMATCH" + wrong).c_str());
  return wrong.empty() ? 0 : 2;
}
