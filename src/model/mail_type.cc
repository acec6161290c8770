#include "model/mail_type.h"

#include "common/strings.h"

namespace rota::model {
namespace {

struct Named {
  std::string_view name;
  uint32_t events;
};

// Slurm's printed order.
constexpr Named kEvents[] = {
    {"ARRAY_TASKS", kMailArrayTasks},
    {"INVALID_DEPEND", kMailInvalidDepend},
    {"BEGIN", kMailBegin},
    {"END", kMailEnd},
    {"FAIL", kMailFail},
    {"REQUEUE", kMailRequeue},
    {"STAGE_OUT", kMailStageOut},
    {"TIME_LIMIT_50", kMailTimeLimit50},
    {"TIME_LIMIT_80", kMailTimeLimit80},
    {"TIME_LIMIT_90", kMailTimeLimit90},
    {"TIME_LIMIT", kMailTimeLimit},
};

constexpr uint32_t kAll =
    kMailBegin | kMailEnd | kMailFail | kMailInvalidDepend | kMailRequeue | kMailStageOut;

}  // namespace

std::optional<uint32_t> ParseMailType(std::string_view text) {
  uint32_t events = 0;
  bool none = false;
  for (std::string_view word : Split(text, ',')) {
    word = Trim(word);
    if (EqualsIgnoreCase(word, "NONE")) {
      none = true;
      events = 0;
      continue;
    }
    if (EqualsIgnoreCase(word, "ALL")) {
      events |= kAll;
      continue;
    }
    for (const Named& e : kEvents) {
      if (EqualsIgnoreCase(word, e.name)) events |= e.events;
    }
  }
  if (events == 0 && !none) return std::nullopt;
  return events;
}

std::string FormatMailType(uint32_t events) {
  if (events == 0) return "NONE";
  std::string out;
  for (const Named& e : kEvents) {
    if ((events & e.events) == 0) continue;
    if (!out.empty()) out += ",";
    out += e.name;
  }
  return out;
}

std::string_view MailEventWords(MailEvent event) {
  switch (event) {
    case kMailBegin:
      return "Began";
    case kMailEnd:
      return "Ended";
    case kMailFail:
      return "Failed";
    case kMailRequeue:
      return "Requeued";
    case kMailTimeLimit:
      return "Reached time limit";
    case kMailTimeLimit90:
      return "Reached 90% of time limit";
    case kMailTimeLimit80:
      return "Reached 80% of time limit";
    case kMailTimeLimit50:
      return "Reached 50% of time limit";
    case kMailInvalidDepend:
      return "Invalid dependency";
    case kMailStageOut:
      return "Staged Out";
    case kMailArrayTasks:
      break;
  }
  return "";
}

}  // namespace rota::model
