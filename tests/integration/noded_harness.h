#pragma once

// A small cluster on one host for node daemon tests: two virtual nodes with
// fake GPUs (character devices of major 195 made with mknod, which open with
// ENXIO since no driver is behind them), cgroup.conf constraining cores, RAM
// and devices, auth/slurm with a fresh key, and either a real rotactld or a
// FakeController that records what the nodes tell it.
//
// Node names carry the test process's pid, so that tests running at the same
// time never share rota/<node>/ cgroups. Everything is torn down by the
// destructor: daemons killed by pid, leftover job cgroups emptied and removed,
// the temporary directory deleted.

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "api/methods.h"
#include "rota.pb.h"
#include "rpc/server.h"
#include "testing/temp_dir.h"
#include "tests/integration/controller_process.h"

namespace rota::testing {

inline std::string ReadFileText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// A character device major that no driver of this host registered (from the
// top of the dynamic range down), so that a fake device made with it opens
// with ENXIO, as a real driver's device does where that driver is not loaded.
inline unsigned UnusedCharMajor() {
  std::istringstream devices(ReadFileText("/proc/devices"));
  std::vector<unsigned> used;
  for (std::string line; std::getline(devices, line) && line != "Block devices:";) {
    unsigned major = 0;
    if (std::istringstream(line) >> major) used.push_back(major);
  }
  unsigned major = 511;
  while (std::find(used.begin(), used.end(), major) != used.end()) --major;
  return major;
}

// Alive and not a zombie (a killed orphan may wait as a zombie for init).
inline bool ProcessAlive(pid_t pid) {
  std::string stat = ReadFileText("/proc/" + std::to_string(pid) + "/stat");
  if (stat.empty()) return false;
  size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z';
}

// Polls `condition` every 20 ms for up to `timeout`.
template <typename F>
bool WaitUntil(F condition, std::chrono::milliseconds timeout = std::chrono::seconds(15)) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return condition();
}

// A child process running a built binary, its output in a log file; killed
// (SIGTERM, then SIGKILL) and reaped on destruction.
class DaemonProcess {
 public:
  // `env`: NAME=value words added to the daemon's environment.
  DaemonProcess(std::vector<std::string> argv, std::string log, std::vector<std::string> env = {})
      : log_(std::move(log)) {
    pid_ = fork();
    if (pid_ == 0) {
      for (std::string& e : env) putenv(e.data());
      int fd = open(log_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      dup2(fd, 1);
      dup2(fd, 2);
      std::vector<char*> args;
      for (std::string& a : argv) args.push_back(a.data());
      args.push_back(nullptr);
      execv(args[0], args.data());
      _exit(127);
    }
  }
  ~DaemonProcess() { Stop(); }
  DaemonProcess(const DaemonProcess&) = delete;
  DaemonProcess& operator=(const DaemonProcess&) = delete;

  pid_t pid() const { return pid_; }
  bool Running() {
    if (pid_ <= 0) return false;
    int status;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return false;
    }
    return true;
  }
  // SIGTERM, up to 10 s to finish, then SIGKILL.
  void Stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    if (!WaitUntil([this] { return !Running(); }, std::chrono::seconds(10)) && pid_ > 0) {
      kill(pid_, SIGKILL);
      int status;
      waitpid(pid_, &status, 0);
    }
    pid_ = -1;
  }
  std::string Log() const { return ReadFileText(log_); }

 private:
  std::string log_;
  pid_t pid_ = -1;
};

// Stands in for rotactld: accepts every node message and records it.
class FakeController {
 public:
  FakeController() {
    auto server = rpc::RpcServer::Start(
        rpc::ServerOptions{},
        [this](const rpc::RequestContext& context, std::string body, rpc::Responder respond) {
          {
            std::lock_guard<std::mutex> lock(mu_);
            if (context.method == api::kNodeRegister) {
              wire::NodeRegisterRequest req;
              req.ParseFromString(body);
              registrations_.push_back(req);
            } else if (context.method == api::kJobExited) {
              wire::JobExitedRequest req;
              req.ParseFromString(body);
              exits_.push_back(req);
            }
          }
          cv_.notify_all();
          respond(0, wire::Empty().SerializeAsString());
        });
    if (server.ok()) server_ = std::move(server).value();
  }
  uint16_t port() const { return server_ ? server_->port() : 0; }

  std::vector<wire::NodeRegisterRequest> Registrations() {
    std::lock_guard<std::mutex> lock(mu_);
    return registrations_;
  }
  // The final exit report for `job_id` (the node is clean, the Epilog ran),
  // waiting up to `timeout` for it.
  std::optional<wire::JobExitedRequest> WaitForExit(
      uint32_t job_id, std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    std::unique_lock<std::mutex> lock(mu_);
    std::optional<wire::JobExitedRequest> found;
    cv_.wait_for(lock, timeout, [&] {
      for (const auto& e : exits_) {
        if (e.job_id() == job_id && !e.cleanup_follows()) found = e;
      }
      return found.has_value();
    });
    return found;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<wire::NodeRegisterRequest> registrations_;  // Guarded by mu_.
  std::vector<wire::JobExitedRequest> exits_;             // Guarded by mu_.
  std::unique_ptr<rpc::RpcServer> server_;
};

// The configuration files, fake devices and daemons of a two-node test cluster.
class NodedCluster {
 public:
  static constexpr int kNodes = 2;
  static constexpr int kGpusPerNode = 2;
  static constexpr unsigned kFirstMinor = 200;

  // `controller_port`: where rotactld (or a FakeController) listens;
  // `settings`: more slurm.conf lines (SlurmdTimeout=, ReturnToService=, ...).
  // KillWait is 2 s, so that jobs that ignore SIGTERM die quickly.
  explicit NodedCluster(uint16_t controller_port, const std::string& settings = "")
      : controller_port_(controller_port) {
    // Jobs of a test user must reach their work dir and the spool.
    chmod(dir_.path().c_str(), 0755);
    prefix_ = "nd" + std::to_string(getpid()) + "n";
    std::string nodes;
    std::string gres;
    for (int n = 1; n <= kNodes; ++n) {
      ports_.push_back(FreeLoopbackPort());
      nodes +=
          "NodeName=" + Node(n) + " NodeAddr=127.0.0.1 Port=" + std::to_string(ports_.back()) +
          " CPUs=2 CoresPerSocket=2 RealMemory=2000 Gres=gpu:a100:" + std::to_string(kGpusPerNode) +
          "\n";
      for (int g = 0; g < kGpusPerNode; ++g) {
        gres += "NodeName=" + Node(n) + " Name=gpu Type=a100 File=" + Gpu(n, g) + "\n";
      }
    }
    std::filesystem::create_directories(dir_.path() / "dev");
    for (int n = 1; n <= kNodes; ++n) {
      for (int g = 0; g < kGpusPerNode; ++g) {
        mknod(Gpu(n, g).c_str(), S_IFCHR | 0666, makedev(195, Minor(n, g)));
      }
    }
    // Files of drivers a GPU job needs that are no GRES: ConstrainDevices
    // must leave them open, as on a real node.
    mknod(DriverDevice("nvidiactl").c_str(), S_IFCHR | 0666, makedev(195, 255));
    mknod(DriverDevice("nvidia-uvm").c_str(), S_IFCHR | 0666, makedev(UnusedCharMajor(), 0));
    mknod(DriverDevice("uverbs0").c_str(), S_IFCHR | 0666, makedev(231, 192));
    conf_ = dir_.Write("slurm.conf",
                       "ClusterName=ndtest\n"
                       "SlurmctldHost=localhost(127.0.0.1)\n"
                       "SlurmctldPort=" +
                           std::to_string(controller_port_) + "\n" +
                           "AuthType=auth/slurm\n"
                           "StateSaveLocation=" +
                           (dir_.path() / "state").string() + "\n" +
                           "SlurmdSpoolDir=" + (dir_.path() / "spool" / "%n").string() + "\n" +
                           "GresTypes=gpu\n"
                           "SelectTypeParameters=CR_Core_Memory\n"
                           "DefMemPerCPU=100\n"
                           "MinJobAge=600\n"
                           "KillWait=2\n" +
                           settings + nodes +
                           "PartitionName=batch Nodes=ALL Default=YES MaxTime=1-00:00:00 "
                           "DefaultTime=01:00:00\n");
    dir_.Write("gres.conf", gres);
    dir_.Write("cgroup.conf", "ConstrainCores=yes\nConstrainRAMSpace=yes\nConstrainDevices=yes\n");
    std::string key;
    std::mt19937_64 rng(std::random_device{}());
    for (int i = 0; i < 64; ++i) key += static_cast<char>(rng() & 0xff);
    chmod(dir_.Write("slurm.key", key).c_str(), 0600);
    dir_.Write("work/.keep", "");
    chmod((dir_.path() / "work").c_str(), 0777);
  }

  ~NodedCluster() {
    nodes_.clear();  // rotad stops first: it kills its own jobs.
    for (int n = 1; n <= kNodes; ++n) RemoveCgroupsOf(Node(n));
  }

  const std::string& conf() const { return conf_; }
  const TempDir& dir() const { return dir_; }
  std::string work_dir() const { return (dir_.path() / "work").string(); }
  std::string Node(int n) const { return prefix_ + std::to_string(n); }
  std::string NodeList() const { return prefix_ + "[1-" + std::to_string(kNodes) + "]"; }
  std::string Gpu(int n, int g) const {
    return (dir_.path() / "dev" / ("nvidia" + std::to_string(n) + "_" + std::to_string(g)))
        .string();
  }
  static unsigned Minor(int n, int g) { return kFirstMinor + (n - 1) * kGpusPerNode + g; }
  // A fake driver file no gres.conf line names: "nvidiactl" (195:255),
  // "nvidia-uvm" (a major no driver here has), "uverbs0" (231:192).
  std::string DriverDevice(const std::string& name) const {
    return (dir_.path() / "dev" / name).string();
  }
  // Shell lines for a job's script: open each driver file and /dev/fuse, and
  // print "DRIVER <name> <how>" with how ENXIO (no driver: the cage let it
  // through), EPERM (the cage refused it), OK (it opened) or the message.
  std::string DriverProbeLines() const {
    std::string lines =
        "probe() { m=$( (exec 3<\"$2\") 2>&1 ); case \"$m\" in\n"
        "  '') h=OK;; *'No such device'*) h=ENXIO;; *'not permitted'*) h=EPERM;; *) h=\"$m\";;"
        " esac; echo \"DRIVER $1 $h\"; }\n";
    for (const char* name : {"nvidiactl", "nvidia-uvm", "uverbs0"}) {
      lines += std::string("probe ") + name + " " + DriverDevice(name) + "\n";
    }
    return lines + "probe fuse /dev/fuse\n";
  }
  // Whether `out` shows every driver file let through by the cage.
  static bool DriverFilesOpen(const std::string& out) {
    for (const char* name : {"nvidiactl", "nvidia-uvm", "uverbs0"}) {
      if (out.find(std::string("DRIVER ") + name + " ENXIO\n") == std::string::npos) return false;
    }
    return out.find("DRIVER fuse OK\n") != std::string::npos ||
           out.find("DRIVER fuse ENXIO\n") != std::string::npos;
  }
  uint16_t NodePort(int n) const { return ports_[n - 1]; }

  // Starts rotad -N for node `n` (`env`: NAME=value words for its
  // environment, e.g. ROTA_FAKE_GPUS=) and waits until it listens.
  bool StartNode(int n, std::vector<std::string> env = {}) {
    auto p = std::make_unique<DaemonProcess>(
        std::vector<std::string>{BinDir() + "/rotad", "-N", Node(n), "-f", conf_},
        (dir_.path() / ("rotad-" + std::to_string(n) + ".log")).string(), std::move(env));
    DaemonProcess* raw = p.get();
    nodes_.push_back(std::move(p));
    node_of_.push_back(n);
    return WaitUntil([&] { return raw->Running() && Accepting(NodePort(n)); },
                     std::chrono::seconds(10));
  }
  // Stops the rotad of node `n`: with `signal` first (SIGKILL: as if it
  // crashed, leaving its jobs behind), then as DaemonProcess::Stop does.
  void StopNode(int n, int signal = SIGTERM) {
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (node_of_[i] != n || !nodes_[i]->Running()) continue;
      kill(nodes_[i]->pid(), signal);
      nodes_[i]->Stop();
    }
  }
  // Sends `signal` to the running rotad of node `n` and leaves it running.
  bool SignalNode(int n, int signal) {
    bool sent = false;
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (node_of_[i] == n && nodes_[i]->Running()) sent = kill(nodes_[i]->pid(), signal) == 0;
    }
    return sent;
  }
  std::string NodeLogs() const {
    std::string out;
    for (const auto& p : nodes_) out += p->Log();
    return out;
  }

  // A job's cgroup v1 directory: below a level per user (the tests' jobs run as root).
  static std::string CgroupDir(const std::string& controller, const std::string& node, uint32_t job,
                               uint32_t uid = 0) {
    return "/sys/fs/cgroup/" + controller + "/rota/" + node + "/uid_" + std::to_string(uid) +
           "/job_" + std::to_string(job);
  }

  // Runs a built command against this cluster's configuration.
  CommandResult Run(const std::string& command_line) const {
    return RunShell("SLURM_CONF=" + conf_ + " PATH=" + BinDir() + ":$PATH " + command_line +
                    " 2>&1");
  }

 private:
  static bool Accepting(uint16_t port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    close(fd);
    return ok;
  }

  // Whatever a failed test left: kill the processes, remove the cgroups.
  static void RemoveCgroupsOf(const std::string& node) {
    namespace fs = std::filesystem;
    for (const char* c : {"cpuset", "memory", "devices", "freezer", "pids", "cpuacct"}) {
      fs::path dir = fs::path("/sys/fs/cgroup") / c / "rota" / node;
      std::error_code ec;
      if (!fs::exists(dir, ec)) continue;
      // Deepest first: users, jobs, steps, tasks.
      std::vector<fs::path> below;
      for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
           it.increment(ec)) {
        if (it->is_directory(ec)) below.push_back(it->path());
      }
      for (auto e = below.rbegin(); e != below.rend(); ++e) {
        // A kill sent to a frozen process (a rotad that died mid-kill) waits for the thaw.
        std::ofstream(*e / "freezer.state") << "THAWED";
        std::istringstream procs(ReadFileText((*e / "cgroup.procs").string()));
        for (pid_t pid; procs >> pid;) kill(pid, SIGKILL);
        WaitUntil([&] { return ReadFileText((*e / "cgroup.procs").string()).empty(); },
                  std::chrono::seconds(5));
        rmdir(e->c_str());
      }
      rmdir(dir.c_str());
    }
  }

  TempDir dir_;
  uint16_t controller_port_;
  std::string prefix_;
  std::string conf_;
  std::vector<uint16_t> ports_;
  std::vector<std::unique_ptr<DaemonProcess>> nodes_;
  std::vector<int> node_of_;  // Parallel to nodes_: which node each serves.
};

}  // namespace rota::testing
