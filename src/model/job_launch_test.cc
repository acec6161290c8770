// JobLaunch: what a node daemon is told of a job.
#include "model/job_launch.h"

#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>

#include "model/wire_encoding.h"

namespace rota::model {
namespace {

// The field lines ("type name = number") of message `name` in rota.proto.
std::map<std::string, std::string> FieldsOf(const std::string& proto, const std::string& name) {
  std::map<std::string, std::string> fields;
  const size_t begin = proto.find("\nmessage " + name + " {");
  EXPECT_NE(begin, std::string::npos) << name;
  if (begin == std::string::npos) return fields;
  const size_t end = proto.find("\n}", begin);
  std::istringstream body(proto.substr(begin, end - begin));
  static const std::regex kField(R"(^\s+((?:repeated |optional )?[\w.]+)\s+(\w+)\s*=\s*(\d+);)");
  for (std::string line; std::getline(body, line);) {
    std::smatch m;
    if (std::regex_search(line, m, kField)) fields[m[2]] = m[1].str() + " = " + m[3].str();
  }
  return fields;
}

std::string RotaProto() {
  std::ifstream in(std::string(ROTA_SOURCE_DIR) + "/proto/rota.proto");
  EXPECT_TRUE(in) << "rota.proto not found";
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A node daemon's files from before JobLaunch (they held whole JobRecords at
// the same field number) read only while each of JobLaunch's fields has its
// JobRecord field's name, number and type.
TEST(JobLaunchTest, EveryFieldIsTheJobRecordsOwn) {
  const std::string proto = RotaProto();
  const std::map<std::string, std::string> record = FieldsOf(proto, "JobRecord");
  const std::map<std::string, std::string> launch = FieldsOf(proto, "JobLaunch");
  ASSERT_GE(launch.size(), 10u);
  for (const auto& [name, declared] : launch) {
    auto it = record.find(name);
    ASSERT_NE(it, record.end()) << name << " is not a JobRecord field";
    EXPECT_EQ(declared, it->second) << name;
  }
}

// A JobRecord with every field of the schema set (a one, an "x", an empty
// message, one element of a repeated field), built from the field lines of
// rota.proto, so that a field added later is covered too.
std::string EveryFieldSet(const std::map<std::string, std::string>& record) {
  std::string bytes;
  for (const auto& [name, declared] : record) {
    const size_t eq = declared.rfind(" = ");
    const int number = std::stoi(declared.substr(eq + 3));
    std::string type = declared.substr(0, eq);
    if (type.rfind("repeated ", 0) == 0) type = type.substr(9);
    if (type.rfind("optional ", 0) == 0) type = type.substr(9);
    if (type == "double" || type == "fixed64" || type == "sfixed64") {
      AppendVarint(bytes, (static_cast<uint64_t>(number) << 3) | 1);
      bytes.append(8, '\0');
    } else if (type == "float" || type == "fixed32" || type == "sfixed32") {
      AppendVarint(bytes, (static_cast<uint64_t>(number) << 3) | 5);
      bytes.append(4, '\0');
    } else if (type == "string" || type == "bytes") {
      AppendVarint(bytes, (static_cast<uint64_t>(number) << 3) | 2);
      bytes += "\x01x";
    } else if (std::islower(static_cast<unsigned char>(type[0])) || type == "JobState") {
      AppendVarintField(bytes, number, 1);  // Integers, bool, the enum
    } else {                                // A message: present, empty
      AppendVarint(bytes, (static_cast<uint64_t>(number) << 3) | 2);
      AppendVarint(bytes, 0);
    }
  }
  return bytes;
}

// The field numbers present in serialized `bytes`.
std::set<uint32_t> NumbersIn(std::string_view bytes) {
  std::set<uint32_t> out;
  size_t pos = 0;
  WireField f;
  while (pos < bytes.size() && ReadWireField(bytes, pos, f)) out.insert(f.number);
  return out;
}

// LaunchOf copies every field JobLaunch declares and nothing else.
TEST(JobLaunchTest, EveryFieldOfALaunchIsCopiedAndNoOther) {
  const std::string proto = RotaProto();
  const std::map<std::string, std::string> record = FieldsOf(proto, "JobRecord");
  const std::map<std::string, std::string> launch = FieldsOf(proto, "JobLaunch");
  wire::JobRecord job;
  ASSERT_TRUE(job.ParseFromString(EveryFieldSet(record)));
  const std::set<uint32_t> set_in_record = NumbersIn(job.SerializeAsString());
  const std::set<uint32_t> copied = NumbersIn(LaunchOf(job).SerializeAsString());
  for (const auto& [name, declared] : record) {
    const uint32_t number =
        static_cast<uint32_t>(std::stoul(declared.substr(declared.rfind(" = ") + 3)));
    if (!set_in_record.count(number)) continue;  // A map or enum the filler could not set
    EXPECT_EQ(copied.count(number) == 1, launch.count(name) == 1)
        << name << (launch.count(name) ? " is not copied" : " is copied but not declared");
  }
  for (const auto& [name, declared] : launch) {
    const uint32_t number =
        static_cast<uint32_t>(std::stoul(declared.substr(declared.rfind(" = ") + 3)));
    EXPECT_TRUE(set_in_record.count(number)) << name << ": the filler did not set it";
  }
}

TEST(JobLaunchTest, KeepsWhatANodeNeedsAndDropsTheControllersBookkeeping) {
  wire::JobRecord job;
  job.set_job_id(42);
  job.mutable_spec()->set_name("train");
  job.mutable_spec()->set_uid(1000);
  job.set_array_job_id(40);
  job.set_array_task_id(2);
  job.set_state(wire::JOB_STATE_RUNNING);
  job.add_nodes("n1");
  job.add_nodes("n2");
  job.set_restart_count(3);
  job.add_mem_by_node_mb(4000);
  job.add_allocs()->set_gpu_ids("0-1");
  // The controller's own.
  job.set_priority(12345);
  job.set_reason("Resources");
  job.set_sched_nodes("n[3-9]");
  job.set_alloc_tres("cpu=8,gres/gpu=2");

  const wire::JobLaunch launch = LaunchOf(job);
  EXPECT_EQ(launch.job_id(), 42u);
  EXPECT_EQ(launch.spec().name(), "train");
  EXPECT_EQ(launch.spec().uid(), 1000u);
  EXPECT_EQ(launch.array_job_id(), 40u);
  EXPECT_EQ(launch.array_task_id(), 2u);
  EXPECT_EQ(launch.state(), wire::JOB_STATE_RUNNING);
  ASSERT_EQ(launch.nodes_size(), 2);
  EXPECT_EQ(launch.nodes(1), "n2");
  EXPECT_EQ(launch.restart_count(), 3u);
  EXPECT_EQ(launch.mem_by_node_mb(0), 4000u);
  EXPECT_EQ(launch.allocs(0).gpu_ids(), "0-1");
  // Read back as a record, nothing of the controller's is there.
  wire::JobRecord back;
  ASSERT_TRUE(back.ParseFromString(launch.SerializeAsString()));
  EXPECT_EQ(back.priority(), 0u);
  EXPECT_EQ(back.reason(), "");
  EXPECT_EQ(back.sched_nodes(), "");
  EXPECT_EQ(back.alloc_tres(), "");
  EXPECT_EQ(back.nodes_size(), 2);
  EXPECT_LT(launch.ByteSizeLong(), job.ByteSizeLong());
}

// Such a file: a whole record's bytes read as a launch.
TEST(JobLaunchTest, AWholeRecordsBytesReadAsALaunch) {
  wire::JobRecord job;
  job.set_job_id(7);
  job.add_nodes("n1");
  job.set_priority(99);
  wire::JobLaunch launch;
  ASSERT_TRUE(launch.ParseFromString(job.SerializeAsString()));
  EXPECT_EQ(launch.job_id(), 7u);
  EXPECT_EQ(launch.nodes(0), "n1");
}

}  // namespace
}  // namespace rota::model
