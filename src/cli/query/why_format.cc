#include "cli/query/why_format.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/slurm_time.h"
#include "common/duration.h"
#include "common/memory_size.h"

namespace rota::cli {
namespace {

// Past this many nodes the text lists only the first ones (the JSON has all).
constexpr int kMaxNodeRows = 24;

const char* YesNo(bool b) { return b ? "yes" : "no"; }

}  // namespace

std::string FormatWhyText(const wire::WhyResponse& why) {
  std::string out;
  auto line = [&](std::string text) {
    out += text;
    out += '\n';
  };
  if (why.state() != "PENDING") {
    line(fmt::format("Job {} is {}: it is not waiting.", why.job_id(), why.state()));
    return out;
  }
  line(fmt::format("Job {} is PENDING in partition {}, reason {}.", why.job_id(), why.partition(),
                   why.reason().empty() ? "None" : why.reason()));
  if (!why.request().empty()) line("It asks for " + why.request() + ".");
  if (why.restarts() > 0) {
    std::string text = fmt::format("It has run before: requeued {} time{}", why.restarts(),
                                   why.restarts() == 1 ? "" : "s");
    if (why.last_preempted() > 0) {
      text += ", last displaced by a preemptor at " + FormatSlurmTime(why.last_preempted());
    }
    line(text + ".");
  }
  if (why.rank() > 0) {
    std::string priority = fmt::format("Priority {}", why.priority());
    if (!why.factors().empty()) priority += " (" + why.factors() + ")";
    line(fmt::format("{}; it is {} of {} in its partition's queue.", priority, why.rank(),
                     why.queued()));
  }
  out += '\n';
  if (why.causes().empty()) {
    line("Nothing holds it now: the next scheduling pass should start it.");
  } else {
    line("What holds it:");
    for (const wire::WhyCause& c : why.causes()) {
      line(fmt::format("  * {}{}: {}", c.code(), c.reported() ? " (reported)" : "", c.text()));
    }
  }
  if (!why.limits().empty()) {
    out += '\n';
    line("Limits reached:");
    line(fmt::format("  {:<32} {:<16} {:<12} {:>10} {:>10} {:>10}", "HOLDER", "LIMIT", "TRES",
                     "USED", "ASKED", "MAX"));
    for (const wire::WhyLimit& l : why.limits()) {
      line(fmt::format("  {:<32} {:<16} {:<12} {:>10} {:>10} {:>10}", l.holder(), l.limit(),
                       l.tres().empty() ? "-" : l.tres(), l.used(), l.asked(), l.max()));
    }
  }
  if (!why.dependencies().empty()) {
    out += '\n';
    line("Dependencies:");
    for (const wire::WhyDependency& d : why.dependencies()) {
      std::string jobs;
      for (const std::string& j : d.jobs()) jobs += (jobs.empty() ? "" : ", ") + j;
      line(fmt::format("  {:<20} {:<10} {}", d.term(), d.state(), jobs.empty() ? "-" : jobs));
    }
  }
  if (!why.ahead().empty()) {
    out += '\n';
    line("Jobs ahead of it (nearest first):");
    line(fmt::format("  {:>10} {:<12} {:>10} {}", "JOBID", "USER", "PRIORITY", "FACTORS"));
    for (const wire::WhyJobAhead& a : why.ahead()) {
      line(fmt::format("  {:>10} {:<12} {:>10} {}", a.job_id(), a.user().empty() ? "-" : a.user(),
                       a.priority(), a.factors()));
    }
  }
  if (why.predicted_run_s() > 0) {
    out += '\n';
    line(fmt::format(
        "Planned to run {} (its user's recent jobs), not its time limit: planning only, the "
        "limit still ends it.",
        FormatDurationScontrol(why.predicted_run_s())));
  }
  if (why.planned_start() > 0) {
    out += '\n';
    line(fmt::format("Planned start: {} on {} (last backfill pass).",
                     FormatSlurmTime(why.planned_start()), why.planned_nodes()));
    if (why.start_p50() > 0) {
      line(fmt::format(
          "As past plans turned out: starts by {} half the time (P50), by {} nine times in ten "
          "(P90).",
          FormatSlurmTime(why.start_p50()), FormatSlurmTime(why.start_p90())));
    }
    for (const wire::WhyRelease& r : why.releases()) {
      line(fmt::format("  {} frees at {}: job {}{} {}", r.node(), FormatSlurmTime(r.time()),
                       r.job_id(), r.user().empty() ? "" : " (" + r.user() + ")",
                       r.predicted() ? "is predicted to end" : "reaches its time limit"));
    }
  }
  if (why.what_if_start() > 0 || !why.options().empty()) {
    out += '\n';
    line(why.what_if_start() > 0
             ? fmt::format("What would start it sooner (the planner, asked now; as it is: {}):",
                           FormatSlurmTime(why.what_if_start()))
             : "What would start it sooner (the planner, asked now; as it is: no start planned):");
    if (why.options().empty())
      line(
          "  nothing tried would (shorter time limits, fewer GPUs, other "
          "partitions and GPU types)");
    for (const wire::WhyOption& o : why.options()) {
      std::string sooner =
          o.sooner_s() > 0 ? fmt::format("{} min sooner", (o.sooner_s() + 59) / 60) : "planned";
      line(fmt::format("  {:<28} {}  {:<16} {}", o.change(), FormatSlurmTime(o.start()), sooner,
                       o.what()));
    }
  }
  if (!why.nodes().empty()) {
    out += '\n';
    line(fmt::format("Nodes of partition {} against its share of one node:", why.partition()));
    line(fmt::format("  {:<16} {:<16} {:>9} {:>9} {:>9} {:>8} {:>14}", "NODE", "STATE", "FREE_CPUS",
                     "FREE_GPUS", "FREE_MEM", "FITS_NOW", "FITS_WHEN_IDLE"));
    int shown = 0;
    for (const wire::WhyNode& n : why.nodes()) {
      if (shown++ == kMaxNodeRows) {
        line(fmt::format("  ... {} more (rota why --json lists them all)",
                         why.nodes_size() - kMaxNodeRows));
        break;
      }
      line(fmt::format("  {:<16} {:<16} {:>9} {:>9} {:>9} {:>8} {:>14}", n.name(), n.state(),
                       n.free_cpus(), n.free_gpus(), FormatMemoryMb(n.free_mem_mb()),
                       YesNo(n.fits_now()), YesNo(n.fits_when_idle())));
    }
  }
  return out;
}

std::string FormatWhyJson(const wire::WhyResponse& why) {
  nlohmann::ordered_json j;
  j["job_id"] = why.job_id();
  j["state"] = why.state();
  j["reason"] = why.reason();
  j["partition"] = why.partition();
  j["request"] = why.request();
  j["nodes_needed"] = why.nodes_needed();
  j["priority"] = why.priority();
  j["factors"] = why.factors();
  j["rank"] = why.rank();
  j["queued"] = why.queued();
  j["causes"] = nlohmann::json::array();
  for (const wire::WhyCause& c : why.causes()) {
    j["causes"].push_back({{"code", c.code()}, {"text", c.text()}, {"reported", c.reported()}});
  }
  j["limits"] = nlohmann::json::array();
  for (const wire::WhyLimit& l : why.limits()) {
    j["limits"].push_back({{"reason", l.reason()},
                           {"holder", l.holder()},
                           {"limit", l.limit()},
                           {"tres", l.tres()},
                           {"used", l.used()},
                           {"asked", l.asked()},
                           {"max", l.max()}});
  }
  j["dependencies"] = nlohmann::json::array();
  for (const wire::WhyDependency& d : why.dependencies()) {
    j["dependencies"].push_back(
        {{"term", d.term()},
         {"state", d.state()},
         {"jobs", std::vector<std::string>(d.jobs().begin(), d.jobs().end())}});
  }
  j["ahead"] = nlohmann::json::array();
  for (const wire::WhyJobAhead& a : why.ahead()) {
    j["ahead"].push_back({{"job_id", a.job_id()},
                          {"user", a.user()},
                          {"priority", a.priority()},
                          {"factors", a.factors()}});
  }
  j["planned_start"] = why.planned_start();
  j["planned_nodes"] = why.planned_nodes();
  j["start_p50"] = why.start_p50();
  j["start_p90"] = why.start_p90();
  j["predicted_run_s"] = why.predicted_run_s();
  j["restarts"] = why.restarts();
  j["last_preempted"] = why.last_preempted();
  j["releases"] = nlohmann::json::array();
  for (const wire::WhyRelease& r : why.releases()) {
    j["releases"].push_back({{"node", r.node()},
                             {"job_id", r.job_id()},
                             {"time", r.time()},
                             {"user", r.user()},
                             {"predicted", r.predicted()}});
  }
  j["what_if_start"] = why.what_if_start();
  j["options"] = nlohmann::json::array();
  for (const wire::WhyOption& o : why.options()) {
    j["options"].push_back({{"change", o.change()},
                            {"what", o.what()},
                            {"start", o.start()},
                            {"sooner_s", o.sooner_s()}});
  }
  j["nodes"] = nlohmann::json::array();
  for (const wire::WhyNode& n : why.nodes()) {
    j["nodes"].push_back({{"name", n.name()},
                          {"state", n.state()},
                          {"usable", n.usable()},
                          {"free_cpus", n.free_cpus()},
                          {"free_gpus", n.free_gpus()},
                          {"free_mem_mb", n.free_mem_mb()},
                          {"fits_now", n.fits_now()},
                          {"fits_when_idle", n.fits_when_idle()}});
  }
  return j.dump(2) + "\n";
}

}  // namespace rota::cli
