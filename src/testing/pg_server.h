#pragma once

// A throwaway PostgreSQL server for tests and benchmarks: initdb on a fresh
// temporary directory, then postgres on a free loopback port (and a socket in
// the same directory), logins by password (user "rota"). Run as an
// unprivileged user: "postgres" (else "nobody") when we are root, ourselves
// otherwise. Stop() (also the destructor) ends it by pid and removes the
// directory; should the test process die first, the server is killed with it
// (PR_SET_PDEATHSIG).
//
// The binaries come from $ROTA_PG_BINDIR, else the newest
// /usr/lib/postgresql/*/bin (Debian's postgresql package).

#include <fcntl.h>
#include <grp.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "testing/free_port.h"

namespace rota::testing {

class PostgresServer {
 public:
  PostgresServer() = default;
  ~PostgresServer() { Stop(); }
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  // Creates the cluster and starts the server; "" on success, else why not.
  // `durable`: fsync as a production server does (benchmarks); tests run
  // without it.
  std::string Start(bool durable = false) {
    std::string bindir = BinDir();
    if (bindir.empty()) {
      return "no PostgreSQL server binaries (initdb) in $ROTA_PG_BINDIR or "
             "/usr/lib/postgresql/*/bin: run scripts/install-deps.sh";
    }
    uid_t uid = geteuid();
    gid_t gid = getegid();
    if (uid == 0) {
      passwd* pw = getpwnam("postgres");
      if (pw == nullptr) pw = getpwnam("nobody");
      if (pw == nullptr) return "no unprivileged user (postgres or nobody) to run PostgreSQL as";
      uid = pw->pw_uid;
      gid = pw->pw_gid;
    }
    std::string pattern = (std::filesystem::temp_directory_path() / "rota-pg-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) return "mkdtemp failed";
    dir_ = pattern;
    if (chown(dir_.c_str(), uid, gid) != 0) return "cannot chown " + dir_;
    const std::string pwfile = dir_ + "/pwfile";
    std::ofstream(pwfile) << password_ << "\n";
    if (chown(pwfile.c_str(), uid, gid) != 0) return "cannot chown " + pwfile;

    int status = 0;
    pid_t initdb = Spawn(bindir + "/initdb",
                         {"-D", dir_ + "/data", "-U", user_, "--pwfile=" + pwfile, "-A",
                          "scram-sha-256", "--no-sync", "--no-locale", "-E", "UTF8"},
                         dir_ + "/initdb.log", uid, gid);
    if (initdb < 0 || waitpid(initdb, &status, 0) != initdb || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0) {
      return "initdb failed: " + ReadFile(dir_ + "/initdb.log");
    }
    port_ = FreeLoopbackPort();
    durable_ = durable;
    uid_ = uid;
    gid_ = gid;
    bindir_ = bindir;
    return Launch();
  }

  // Stops the server but keeps its data; Restart() brings it back on the
  // same port (a database server going away under a client).
  void Halt() { Kill(); }
  std::string Restart() { return pid_ > 0 ? "already running" : Launch(); }

  // Ends the server (fast shutdown, SIGKILL after 20 s) and removes its files.
  void Stop() {
    Kill();
    if (!dir_.empty()) {
      std::error_code ignored;
      std::filesystem::remove_all(dir_, ignored);
      dir_.clear();
    }
  }

  uint16_t port() const { return port_; }
  const std::string& user() const { return user_; }
  const std::string& password() const { return password_; }
  std::string Log() const { return ReadFile(dir_ + "/postgres.log"); }

  // A libpq connection string for `database`.
  std::string ConnInfo(const std::string& database) const {
    return "host=127.0.0.1 port=" + std::to_string(port_) + " dbname=" + database +
           " user=" + user_ + " password=" + password_;
  }

  // Runs `sql` on `database` with `params` bound as $1.. (text); returns the
  // first column of the first row ("" when there is none), or "ERROR: ..." .
  std::string Query(const std::string& database, const std::string& sql,
                    const std::vector<std::string>& params = {}) const {
    PGconn* conn = PQconnectdb(ConnInfo(database).c_str());
    std::string out;
    if (PQstatus(conn) != CONNECTION_OK) {
      out = std::string("ERROR: ") + PQerrorMessage(conn);
    } else {
      std::vector<const char*> values;
      for (const std::string& p : params) values.push_back(p.c_str());
      PGresult* r = PQexecParams(conn, sql.c_str(), static_cast<int>(values.size()), nullptr,
                                 values.data(), nullptr, nullptr, 0);
      ExecStatusType st = PQresultStatus(r);
      if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
        out = std::string("ERROR: ") + PQresultErrorMessage(r);
      } else if (st == PGRES_TUPLES_OK && PQntuples(r) > 0) {
        out = PQgetvalue(r, 0, 0);
      }
      PQclear(r);
    }
    PQfinish(conn);
    return out;
  }

  // Creates an empty database with a name of its own; returns the name, or
  // "" (see Log()) when it could not.
  std::string CreateDatabase() {
    std::string name = "rota_test_" + std::to_string(++databases_);
    std::string r = Query("postgres", "CREATE DATABASE " + name);
    return r.rfind("ERROR", 0) == 0 ? "" : name;
  }

 private:
  std::string Launch() {
    std::vector<std::string> args = {
        "-D", dir_ + "/data",        "-k", dir_,
        "-p", std::to_string(port_), "-c", "listen_addresses=127.0.0.1",
        "-c", "max_connections=40",  "-c", "shared_buffers=32MB"};
    if (!durable_) {
      for (const char* setting : {"fsync=off", "synchronous_commit=off", "full_page_writes=off"}) {
        args.push_back("-c");
        args.push_back(setting);
      }
    }
    pid_ = Spawn(bindir_ + "/postgres", args, dir_ + "/postgres.log", uid_, gid_);
    if (pid_ < 0) return "cannot start postgres";
    const std::string ping = "host=127.0.0.1 port=" + std::to_string(port_) +
                             " dbname=postgres connect_timeout=2 user=" + user_;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    int status = 0;
    while (PQping(ping.c_str()) != PQPING_OK) {
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return "postgres exited: " + Log();
      }
      if (std::chrono::steady_clock::now() > deadline) return "postgres not ready: " + Log();
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return "";
  }

  void Kill() {
    if (pid_ > 0) {
      kill(pid_, SIGINT);
      int status;
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (waitpid(pid_, &status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
          kill(pid_, SIGKILL);
          waitpid(pid_, &status, 0);
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      pid_ = -1;
    }
  }

  static std::string BinDir() {
    if (const char* env = std::getenv("ROTA_PG_BINDIR"); env != nullptr && *env != '\0') {
      return std::filesystem::exists(std::string(env) + "/initdb") ? env : "";
    }
    std::vector<std::filesystem::path> found;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator("/usr/lib/postgresql", ec)) {
      if (std::filesystem::exists(e.path() / "bin" / "initdb")) found.push_back(e.path() / "bin");
    }
    if (found.empty()) return "";
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
      return std::stoi(a.parent_path().filename().string()) <
             std::stoi(b.parent_path().filename().string());
    });
    return found.back().string();
  }

  static std::string ReadFile(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  // Starts `program` as uid/gid with output to `log`; the child dies with us.
  static pid_t Spawn(const std::string& program, const std::vector<std::string>& args,
                     const std::string& log, uid_t uid, gid_t gid) {
    std::vector<const char*> argv = {program.c_str()};
    for (const std::string& a : args) argv.push_back(a.c_str());
    argv.push_back(nullptr);
    const pid_t parent = getpid();
    pid_t pid = fork();
    if (pid != 0) return pid;
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      if (fchown(fd, uid, gid) != 0) _exit(126);
      dup2(fd, 1);
      dup2(fd, 2);
    }
    if (geteuid() == 0 && (setgroups(0, nullptr) != 0 || setgid(gid) != 0 || setuid(uid) != 0)) {
      _exit(126);
    }
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(126);
    if (chdir("/") != 0) _exit(126);
    execv(program.c_str(), const_cast<char* const*>(argv.data()));
    _exit(127);
  }

  std::string dir_;
  std::string bindir_;
  uid_t uid_ = 0;
  gid_t gid_ = 0;
  bool durable_ = false;
  pid_t pid_ = -1;
  uint16_t port_ = 0;
  std::string user_ = "rota";
  std::string password_ = "rota-test-secret";
  int databases_ = 0;
};

}  // namespace rota::testing
