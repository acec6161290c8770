// squeue asks the controller only for the record fields its format and sort
// read (SqueueProjection), and sorts on keys computed once per job. These
// tests hold both to the listing squeue printed from whole records with a
// comparison per key: every field and every sort key, over varied jobs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "cli/format/squeue_fields.h"
#include "common/duration.h"
#include "common/strings.h"
#include "model/record_projection.h"

namespace rota::cli::format {
namespace {

using wire::JobRecord;

constexpr int64_t kNow = 1'795'936'455;

// A small deterministic generator: the same jobs on every run.
class Picker {
 public:
  uint32_t Next(uint32_t n) {
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>((state_ >> 33) % n);
  }
  template <typename T>
  const T& From(const std::vector<T>& v) {
    return v[Next(static_cast<uint32_t>(v.size()))];
  }

 private:
  uint64_t state_ = 42;
};

// Jobs that set every field some of the time, with few distinct values, so
// that sorts tie often and a field read but not declared shows.
std::vector<JobRecord> VariedJobs(int n) {
  Picker p;
  const std::vector<std::string> names = {"a", "train", "wrap", "a_much_longer_job_name", ""};
  const std::vector<std::string> words = {"", "batch", "gpu", "Batch", "short"};
  const std::vector<std::string> node_names = {"n1", "n2", "n10", "n01", "gpu-a"};
  const std::vector<wire::JobState> states = {wire::JOB_STATE_PENDING,   wire::JOB_STATE_RUNNING,
                                              wire::JOB_STATE_SUSPENDED, wire::JOB_STATE_COMPLETED,
                                              wire::JOB_STATE_TIMEOUT,   wire::JOB_STATE_FAILED};
  const std::vector<int64_t> limits = {-1, 0, 60, 3600, 2 * 86400, kInfiniteDuration};
  const std::vector<int64_t> times = {0, kNow - 7200, kNow - 60, kNow + 3600};
  std::vector<JobRecord> jobs(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    JobRecord& j = jobs[static_cast<size_t>(i)];
    j.set_job_id(static_cast<uint32_t>(1000 + p.Next(50)));
    if (p.Next(3) == 0) {
      j.set_array_job_id(static_cast<uint32_t>(900 + p.Next(5)));
      if (p.Next(2) == 0) {
        j.set_array_meta(true);
        j.set_array_pending("3-" + std::to_string(4 + p.Next(20)));
        j.set_array_max_running(p.Next(3));
      } else {
        j.set_array_task_id(p.Next(10));
      }
    }
    j.set_state(p.From(states));
    j.set_reason(p.From(std::vector<std::string>{"", "Priority", "Resources"}));
    j.set_submit_time(kNow - 9000 + p.Next(100));
    j.set_eligible_time(p.From(times));
    j.set_start_time(p.From(times));
    j.set_end_time(p.From(times));
    j.set_time_limit_s(p.From(limits));
    j.set_priority(p.Next(4) * 1000u);
    j.set_exit_code(p.Next(3) << 8);
    for (uint32_t k = p.Next(4); k > 0; --k) j.add_nodes(p.From(node_names));
    j.set_alloc_cpus(p.Next(3) * 4);
    j.set_restart_count(p.Next(2));
    j.set_requeue(p.Next(2) == 1);
    j.set_last_sched_eval(p.From(times));
    j.set_dependency_state(p.Next(3) == 0 ? "afterok:12" : "");
    j.set_alloc_tres(p.Next(2) ? "cpu=4,mem=4G" : "");
    j.set_accrue_time(p.From(times));
    j.set_req_nodes(p.Next(3));
    j.set_cpus_per_node(4);
    j.set_gpus_per_node(p.Next(2));
    wire::JobSpec& s = *j.mutable_spec();
    s.set_name(p.From(names));
    s.set_partition(p.From(words));
    s.set_account(p.From(words));
    s.set_qos(p.From(words));
    s.set_min_nodes(p.Next(3));
    s.set_num_tasks(p.Next(4));
    s.set_cpus_per_task(p.Next(3));
    s.set_mem_per_node_mb(p.Next(3) * 1024);
    s.set_mem_per_cpu_mb(p.Next(3) * 512);
    s.set_mem_given(p.Next(2) == 1);
    s.set_gres(p.Next(2) ? "gpu:a100:2" : "");
    s.set_gpus_per_node(p.Next(2) ? "2" : "");
    s.set_time_min_s(p.Next(2) * 600);
    s.set_std_out(p.Next(2) ? "out.txt" : "");
    s.set_std_err(p.Next(2) ? "err.txt" : "");
    s.set_std_in(p.Next(2) ? "/dev/null" : "");
    s.set_work_dir(p.From(words));
    s.set_exclusive(p.Next(2) == 1);
    s.set_constraint(p.Next(2) ? "a100" : "");
    s.set_nodelist(p.Next(2) ? "n1" : "");
    s.set_exclude(p.Next(2) ? "n2" : "");
    s.set_dependency(p.Next(2) ? "afterany:3" : "");
    s.set_nice(static_cast<int32_t>(p.Next(3)) - 1);
    s.set_reservation(p.Next(2) ? "maint" : "");
    s.set_comment(p.Next(2) ? "note" : "");
    s.set_contiguous(p.Next(2) == 1);
    s.set_uid(p.Next(3) * 1000);
    s.set_gid(p.Next(3) * 1000);
    s.set_user(p.Next(2) ? p.From(words) : "");
    s.set_group(p.Next(2) ? p.From(words) : "");
    // Fields no squeue column shows: they must never be asked for.
    s.set_script("#!/bin/sh\ntrue\n");
    s.add_environment("PATH=/usr/bin");
  }
  return jobs;
}

JobRecord Project(const JobRecord& job, const model::JobFieldSet& fields) {
  std::string bytes;
  EXPECT_TRUE(model::AppendProjectedRecord(job.SerializeAsString(), fields, bytes));
  JobRecord out;
  EXPECT_TRUE(out.ParseFromString(bytes));
  return out;
}

std::vector<JobRecord> ProjectAll(const std::vector<JobRecord>& jobs,
                                  const model::JobFieldSet& fields) {
  std::vector<JobRecord> out;
  for (const JobRecord& j : jobs) out.push_back(Project(j, fields));
  return out;
}

const SqueueContext kCtx{kNow, 3600};

TEST(SqueueProjectionTest, EveryFieldReadsOnlyWhatItDeclares) {
  const std::vector<JobRecord> jobs = VariedJobs(300);
  const auto& fields = SqueueFields().fields();
  for (size_t f = 0; f < fields.size(); ++f) {
    const model::JobFieldSet& reads = SqueueFieldReads(static_cast<int>(f));
    for (const JobRecord& job : jobs) {
      ASSERT_EQ(fields[f].value(Project(job, reads), kCtx), fields[f].value(job, kCtx))
          << fields[f].info.long_name << " of job " << job.job_id();
    }
  }
}

TEST(SqueueProjectionTest, NeverAsksForTheScriptOrEnvironment) {
  SqueueOptions o;
  o.format_long = "";
  for (const auto& field : SqueueFields().fields()) {
    if (!field.info.long_name.empty()) o.format_long += std::string(field.info.long_name) + ",";
  }
  Result<model::JobFieldSet> fields = SqueueProjection(o);
  ASSERT_TRUE(fields.ok());
  EXPECT_FALSE(fields->HasSpec(wire::JobSpec::kScriptFieldNumber));
  EXPECT_FALSE(fields->HasSpec(wire::JobSpec::kEnvironmentFieldNumber));
}

// What RenderSqueue printed from whole records and from the projection its
// options ask for.
void ExpectSameFromProjection(const SqueueOptions& o, const std::vector<JobRecord>& jobs) {
  Result<model::JobFieldSet> fields = SqueueProjection(o);
  ASSERT_TRUE(fields.ok());
  Result<Listing> whole = RenderSqueue(jobs, o, kCtx);
  Result<Listing> projected = RenderSqueue(ProjectAll(jobs, *fields), o, kCtx);
  ASSERT_TRUE(whole.ok());
  ASSERT_TRUE(projected.ok());
  EXPECT_EQ(projected->text, whole->text) << "-o '" << o.format << "' -S '" << o.sort << "'";
}

TEST(SqueueProjectionTest, PresetListingsAreTheSameFromProjectedRecords) {
  const std::vector<JobRecord> jobs = VariedJobs(300);
  SqueueOptions o;
  ExpectSameFromProjection(o, jobs);
  o.long_format = true;
  ExpectSameFromProjection(o, jobs);
  o.long_format = false;
  o.start = true;
  ExpectSameFromProjection(o, jobs);
}

TEST(SqueueProjectionTest, EverySortKeyReadsWhatItsFieldReads) {
  const std::vector<JobRecord> jobs = VariedJobs(300);
  for (char key : std::string("iAPtTpQuUjSVelLMDCNaqgG")) {
    for (const char* sign : {"", "-"}) {
      SqueueOptions o;
      o.format = "%A";  // Reads nothing the key needs.
      o.sort = std::string(sign) + key;
      ExpectSameFromProjection(o, jobs);
    }
  }
}

TEST(SqueueProjectionTest, BadSortSpecIsRefusedBeforeAsking) {
  SqueueOptions o;
  o.sort = "P,z";
  EXPECT_EQ(SqueueProjection(o).status().message(), "Invalid sort specification: z");
}

// ---- Sorting on precomputed keys against comparing the records each time ----

// The order the comparison-per-key sort gave: one stable sort on the
// composite key, comparing freshly built values.
std::vector<uint32_t> ReferenceOrder(std::vector<const JobRecord*> rows, const std::string& spec) {
  auto user = [](const JobRecord& j) {
    return j.spec().user().empty() ? std::to_string(j.spec().uid()) : j.spec().user();
  };
  auto group = [](const JobRecord& j) {
    return j.spec().group().empty() ? std::to_string(j.spec().gid()) : j.spec().group();
  };
  auto used = [](const JobRecord& j) -> int64_t {
    if (j.start_time() == 0 || j.state() == wire::JOB_STATE_PENDING) return 0;
    const bool running =
        j.state() == wire::JOB_STATE_RUNNING || j.state() == wire::JOB_STATE_SUSPENDED;
    return ((running || j.end_time() == 0) ? kNow : j.end_time()) - j.start_time();
  };
  auto unlimited = [](int64_t l) { return l < 0 || l == kInfiniteDuration; };
  auto cmp = [&](char key, const JobRecord& a, const JobRecord& b) -> int {
    auto c3 = [](const auto& x, const auto& y) { return x < y ? -1 : (y < x ? 1 : 0); };
    switch (key) {
      case 'i': {
        auto id = [](const JobRecord& j) {
          return j.array_job_id() != 0 ? j.array_job_id() : j.job_id();
        };
        auto task = [](const JobRecord& j) {
          return j.array_meta() ? std::numeric_limits<uint32_t>::max() : j.array_task_id();
        };
        const int c = c3(id(a), id(b));
        return c != 0 ? c : c3(task(a), task(b));
      }
      case 'A':
        return c3(a.job_id(), b.job_id());
      case 'P':
        return c3(a.spec().partition(), b.spec().partition());
      case 't':
        return c3(JobStateCompactText(a.state()), JobStateCompactText(b.state()));
      case 'T':
        return c3(JobStateText(a.state()), JobStateText(b.state()));
      case 'p':
      case 'Q':
        return c3(a.priority(), b.priority());
      case 'u':
        return c3(user(a), user(b));
      case 'U':
        return c3(a.spec().uid(), b.spec().uid());
      case 'g':
        return c3(group(a), group(b));
      case 'G':
        return c3(a.spec().gid(), b.spec().gid());
      case 'j':
        return c3(a.spec().name(), b.spec().name());
      case 'S': {
        auto start = [](const JobRecord& j) -> int64_t {
          if (j.start_time() == 0) return std::numeric_limits<int64_t>::max();
          if (j.state() == wire::JOB_STATE_PENDING && j.start_time() < kNow) return kNow;
          return j.start_time();
        };
        return c3(start(a), start(b));
      }
      case 'V':
        return c3(a.submit_time(), b.submit_time());
      case 'e':
        return c3(a.end_time(), b.end_time());
      case 'l': {
        auto l = [&](const JobRecord& j) {
          return unlimited(j.time_limit_s()) ? std::numeric_limits<int64_t>::max()
                                             : j.time_limit_s();
        };
        return c3(l(a), l(b));
      }
      case 'L': {
        auto l = [&](const JobRecord& j) {
          return unlimited(j.time_limit_s()) ? std::numeric_limits<int64_t>::max()
                                             : j.time_limit_s() - used(j);
        };
        return c3(l(a), l(b));
      }
      case 'M':
        return c3(used(a), used(b));
      case 'D': {
        auto n = [](const JobRecord& j) -> uint32_t {
          if (j.nodes_size() > 0) return static_cast<uint32_t>(j.nodes_size());
          return j.req_nodes() > 0 ? j.req_nodes() : std::max<uint32_t>(j.spec().min_nodes(), 1);
        };
        return c3(n(a), n(b));
      }
      case 'C': {
        auto n = [](const JobRecord& j) -> uint32_t {
          if (j.alloc_cpus() > 0) return j.alloc_cpus();
          return std::max<uint32_t>(j.spec().num_tasks(), 1) *
                 std::max<uint32_t>(j.spec().cpus_per_task(), 1);
        };
        return c3(n(a), n(b));
      }
      case 'N':
        return NaturalCompare(a.nodes().empty() ? "" : a.nodes(0),
                              b.nodes().empty() ? "" : b.nodes(0));
      case 'a':
        return c3(a.spec().account(), b.spec().account());
      case 'q':
        return c3(a.spec().qos(), b.spec().qos());
      default:
        return 0;
    }
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const JobRecord* a, const JobRecord* b) {
    for (size_t i = 0; i < spec.size(); ++i) {
      const char key = spec[i];
      if (key == ',' || key == '-' || key == '+') continue;
      const int c = cmp(key, *a, *b);
      const bool descending = i > 0 && spec[i - 1] == '-';
      if (c != 0) return descending ? c > 0 : c < 0;
    }
    return false;
  });
  std::vector<uint32_t> ids;
  for (const JobRecord* j : rows) ids.push_back(j->job_id());
  return ids;
}

TEST(SqueueSortKeysTest, SameOrderAsComparingTheRecords) {
  std::vector<JobRecord> jobs = VariedJobs(500);
  // Distinct ids, so that the orders can be compared by id.
  for (size_t i = 0; i < jobs.size(); ++i) jobs[i].set_job_id(static_cast<uint32_t>(i + 1));
  std::vector<const JobRecord*> rows;
  for (const JobRecord& j : jobs) rows.push_back(&j);
  for (const std::string spec :
       {"P,t,-p", "S,i", "i",  "-i", "A", "P", "t", "T",      "-p",    "Q",
        "u",      "U",   "j",  "S",  "V", "e", "l", "L",      "M",     "D",
        "C",      "N",   "-N", "a",  "q", "g", "G", "u,-V,N", "b,c,P", "t,-T,a,q,p"}) {
    std::vector<const JobRecord*> sorted = rows;
    ASSERT_TRUE(SortJobs(sorted, spec, SqueueContext{kNow, 0}).ok());
    std::vector<uint32_t> ids;
    for (const JobRecord* j : sorted) ids.push_back(j->job_id());
    EXPECT_EQ(ids, ReferenceOrder(rows, spec)) << "-S " << spec;
  }
}

}  // namespace
}  // namespace rota::cli::format
