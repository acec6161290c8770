#pragma once
// Hosts of their own on this machine, for the tests where hosts matter: one
// network namespace per host, each with an address on a private bridge this
// object makes (198.R.S.0/24 in the range RFC 2544 sets aside for testing,
// R.S from the process id so that tests running at once do not meet), its own hostname (a UTS
// namespace) and its own /etc/hosts naming every host (a mount namespace). The host machine itself
// is 198.R.S.1 on the bridge. Nothing leaves the bridge: no route, no NAT.
//
// Programs run on a host through `nsenter --net` and `unshare --uts --mount`
// (not `ip netns exec`, which mounts a fresh /sys and would hide the cgroup
// hierarchies rotad needs). Everything is removed by the destructor, also
// after a failed test; a test killed outright leaves namespaces named
// rota<pid>-* and a bridge rb<pid>, which the next run of the same pid
// removes first.

#include <unistd.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "tests/integration/run_command.h"

namespace rota::testing {

class NetnsHosts {
 public:
  // `names`: the hosts, in address order (.10, .11, ...). `dir`: where the
  // shared hosts file is written.
  NetnsHosts(std::vector<std::string> names, const std::string& dir) : names_(std::move(names)) {
    const int pid = static_cast<int>(getpid());
    tag_ = "rota" + std::to_string(pid);
    bridge_ = "rb" + std::to_string(pid);
    subnet_ = "198." + std::to_string(18 + (pid / 250) % 2) + "." + std::to_string(pid % 250);
    hosts_file_ = dir + "/hosts";
    Teardown();  // Whatever a killed run of this pid left.
    std::ofstream hosts(hosts_file_);
    hosts << "127.0.0.1 localhost\n" << subnet_ << ".1 " << host_machine_name() << "\n";
    for (size_t i = 0; i < names_.size(); ++i) {
      addresses_[names_[i]] = subnet_ + "." + std::to_string(10 + i);
      hosts << addresses_[names_[i]] << " " << names_[i] << "\n";
    }
    hosts.close();
    Step("ip link add " + bridge_ + " type bridge");
    Step("ip addr add " + subnet_ + ".1/24 dev " + bridge_);
    Step("ip link set " + bridge_ + " up");
    for (size_t i = 0; i < names_.size() && error_.empty(); ++i) {
      const std::string ns = Namespace(names_[i]);
      const std::string outside = "vh" + std::to_string(pid) + "x" + std::to_string(i);
      Step("ip netns add " + ns);
      Step("ip link add " + outside + " type veth peer name eth0 netns " + ns);
      Step("ip link set " + outside + " master " + bridge_ + " up");
      Step("ip -n " + ns + " addr add " + addresses_[names_[i]] + "/24 dev eth0");
      Step("ip -n " + ns + " link set eth0 up");
      Step("ip -n " + ns + " link set lo up");
    }
  }
  ~NetnsHosts() { Teardown(); }
  NetnsHosts(const NetnsHosts&) = delete;
  NetnsHosts& operator=(const NetnsHosts&) = delete;

  // Empty when every host was made; else the step that failed and its output.
  const std::string& error() const { return error_; }
  const std::vector<std::string>& names() const { return names_; }
  const std::string& Address(const std::string& host) const { return addresses_.at(host); }
  // The host machine's own address on the bridge.
  std::string HostMachineAddress() const { return subnet_ + ".1"; }
  static std::string host_machine_name() { return "hostmachine"; }
  const std::string& hosts_file() const { return hosts_file_; }

  // Mounts `source` on `target` for what runs on `host` from now on (a file
  // or directory of the host's own, e.g. its /etc/slurm). `target` must exist.
  void BindOnHost(const std::string& host, const std::string& source, const std::string& target) {
    binds_[host] += "mount --bind " + ShellQuote(source) + " " + ShellQuote(target) + " && ";
  }

  // `argv` run on `host`: its network, its hostname, its /etc/hosts.
  std::vector<std::string> On(const std::string& host, const std::vector<std::string>& argv) const {
    auto binds = binds_.find(host);
    std::vector<std::string> out = {"/usr/bin/nsenter",
                                    "--net=/run/netns/" + Namespace(host),
                                    "/usr/bin/unshare",
                                    "--uts",
                                    "--mount",
                                    "--",
                                    "/bin/sh",
                                    "-c",
                                    "mount --bind " + hosts_file_ + " /etc/hosts && " +
                                        (binds == binds_.end() ? std::string() : binds->second) +
                                        "hostname " + host + " && exec \"$@\"",
                                    "sh"};
    out.insert(out.end(), argv.begin(), argv.end());
    return out;
  }
  // `command_line` (a shell line) run on `host`, stderr with stdout.
  CommandResult Run(const std::string& host, const std::string& command_line) const {
    std::string line;
    for (const std::string& word : On(host, {"/bin/sh", "-c", command_line})) {
      line += ShellQuote(word) + " ";
    }
    return RunShell(line + "</dev/null 2>&1");
  }

 private:
  std::string Namespace(const std::string& host) const { return tag_ + "-" + host; }

  void Step(const std::string& command) {
    if (!error_.empty()) return;
    CommandResult r = RunShell(command + " 2>&1");
    if (r.exit_code != 0) error_ = command + ": " + r.out;
  }

  void Teardown() const {
    // Deleting a namespace deletes its end of each veth pair, and so the pair.
    RunShell("for ns in $(ip netns list | awk '{print $1}' | grep '^" + tag_ +
             "-'); do ip netns del $ns; done 2>/dev/null; ip link del " + bridge_ + " 2>/dev/null");
  }

  std::vector<std::string> names_;
  std::map<std::string, std::string> addresses_;
  std::map<std::string, std::string> binds_;  // Host -> its mount commands
  std::string tag_;
  std::string bridge_;
  std::string subnet_;
  std::string hosts_file_;
  std::string error_;
};

}  // namespace rota::testing
