#include "cli/accounting/sreport_fields.h"

#include <fmt/format.h>

#include <span>
#include <string_view>

#include "cli/format/named_columns.h"
#include "common/strings.h"

namespace rota::cli {
namespace {

using format::ChosenColumn;
using format::TableColumn;

template <typename Row>
using Table = format::NamedColumns<Row, ReportOptions>;

// Slurm's sreport: " Unknown field 'X'".
constexpr format::UnknownFieldText kUnknownField{"Unknown field '", "'"};

constexpr bool kLeft = true;
constexpr bool kRight = false;

// A TRES time without its percentage: in GpuEfficiency, Efficiency is the
// share that matters.
std::string PlainTime(double seconds, const ReportOptions& o) {
  ReportTime plain = o.time;
  plain.percent = false;
  return TimeValue(seconds, 0, plain);
}

// --- cluster Utilization -------------------------------------------------

Table<UtilizationLine> UtilizationFields(const ReportOptions& o) {
  using T = Table<UtilizationLine>;
  using L = UtilizationLine;
  const int w = o.time.percent ? 18 : 8;
  return T(
      {
          T::Named("Allocated", w, kRight,
                   [](const L& l, const ReportOptions& c) {
                     return TimeValue(l.allocated, l.reported, c.time);
                   }),
          T::Named("Cluster", 9, kRight,
                   [](const L& l, const ReportOptions&) { return l.cluster; }),
          T::Named("Down", w, kRight,
                   [](const L& l, const ReportOptions& c) {
                     return TimeValue(l.down, l.reported, c.time);
                   }),
          T::Named("Idle", w, kRight,
                   [](const L& l, const ReportOptions& c) {
                     return TimeValue(l.idle, l.reported, c.time);
                   }),
          T::Titled("OverCommitted", "Over Comm", w, kRight,
                    [](const L& l, const ReportOptions& c) {
                      return TimeValue(l.over_committed, l.reported, c.time);
                    }),
          T::Named("Planned", w, kRight,
                   [](const L& l, const ReportOptions& c) {
                     return TimeValue(l.planned, l.reported, c.time);
                   }),
          T::Titled("PlannedDown", "PLND Down", w, kRight,
                    [](const L& l, const ReportOptions& c) {
                      return TimeValue(l.planned_down, l.reported, c.time);
                    }),
          T::Named("Reported", w, kRight,
                   [](const L& l, const ReportOptions& c) {
                     return TimeValue(l.reported, l.reported, c.time);
                   }),
          T::Titled("TresCount", "TRES Count", 10, kRight,
                    [](const L& l, const ReportOptions&) { return std::to_string(l.tres_count); }),
          T::Titled("TresName", "TRES Name", 14, kRight,
                    [](const L& l, const ReportOptions&) { return l.tres; }),
          // Other names Slurm takes, after the fields so that a short name
          // finds the field first.
          T::Titled("PLNDDown", "PLND Down", w, kRight,
                    [](const L& l, const ReportOptions& c) {
                      return TimeValue(l.planned_down, l.reported, c.time);
                    }),
          T::Titled("Reserved", "Planned", w, kRight,
                    [](const L& l, const ReportOptions& c) {
                      return TimeValue(l.planned, l.reported, c.time);
                    }),
      },
      kUnknownField);
}

std::string UtilizationDefault(const ReportOptions& o) {
  return fmt::format("Cluster,{}Allocated,Down,PlannedDown,Idle,Planned,Reported",
                     o.tres_named ? "TresName," : "");
}

// --- TopUsage, AccountUtilizationByUser, UserUtilizationByAccount ---------

Table<UsageLine> UsageFields(SreportReport report, const ReportOptions& o) {
  using T = Table<UsageLine>;
  using L = UsageLine;
  const bool by_user = report == SreportReport::kAccountUtilizationByUser;
  std::vector<T::Def> defs = {
      // The tree's indentation reads only left-justified.
      T::Titled("Accounts", "Account", 15, by_user ? kLeft : kRight,
                [](const L& l, const ReportOptions&) { return l.account; }),
      T::Named("Cluster", 9, kRight, [](const L& l, const ReportOptions&) { return l.cluster; }),
      // Rota does not measure jobs' energy.
      T::Named("Energy", 8, kRight,
               [](const L&, const ReportOptions&) { return std::string("0"); }),
      T::Named("Login", 9, kRight, [](const L& l, const ReportOptions&) { return l.login; }),
      T::Titled("Proper", "Proper Name", 15, kRight,
                [](const L& l, const ReportOptions&) { return l.proper_name; }),
  };
  if (report != SreportReport::kTopUsage) {
    // Listed for the cluster reports, and blank there in Slurm too.
    defs.push_back(T::Titled("TresCount", "TRES Count", 10, kRight,
                             [](const L&, const ReportOptions&) { return std::string(); }));
  }
  defs.push_back(T::Titled("TresName", "TRES Name", 14, kRight,
                           [](const L& l, const ReportOptions&) { return l.tres; }));
  defs.push_back(T::Named(
      "Used", o.time.percent ? 18 : 10, kRight,
      [](const L& l, const ReportOptions& c) { return TimeValue(l.used, l.total, c.time); }));
  return T(defs, kUnknownField);
}

std::string UsageDefault(SreportReport report, const ReportOptions& o) {
  const std::string_view tres = o.tres_named ? "TresName," : "";
  if (report == SreportReport::kAccountUtilizationByUser) {
    return fmt::format("Cluster,Accounts,Login,Proper,{}Used,Energy", tres);
  }
  return fmt::format("Cluster,Login,Proper,Accounts,{}Used,Energy", tres);
}

// --- job SizesByAccount ----------------------------------------------------

Table<SizesLine> SizesFields() {
  using T = Table<SizesLine>;
  using L = SizesLine;
  return T(
      {
          T::Named("Account", 9, kRight,
                   [](const L& l, const ReportOptions&) { return l.account; }),
          T::Named("Cluster", 9, kRight,
                   [](const L& l, const ReportOptions&) { return l.cluster; }),
      },
      kUnknownField);
}

constexpr std::string_view kSizesDefault = "Cluster,Account";

// --- user/account GpuEfficiency ------------------------------------------

Table<GpuEfficiencyLine> GpuEfficiencyFields(bool by_account) {
  using T = Table<GpuEfficiencyLine>;
  using L = GpuEfficiencyLine;
  std::vector<T::Def> defs = {
      T::Named("Account", 15, kRight, [](const L& l, const ReportOptions&) { return l.account; }),
      T::Named("Allocated", 10, kRight,
               [](const L& l, const ReportOptions& c) { return PlainTime(l.allocated, c); }),
      T::Named("Cluster", 9, kRight, [](const L& l, const ReportOptions&) { return l.cluster; }),
      T::Named("Efficiency", 10, kRight,
               [](const L& l, const ReportOptions&) {
                 return l.allocated > 0 ? fmt::format("{:.2f}%", 100.0 * l.used / l.allocated)
                                        : std::string("N/A");
               }),
      T::Named("Jobs", 6, kRight,
               [](const L& l, const ReportOptions&) { return std::to_string(l.jobs); }),
  };
  if (!by_account) {
    defs.push_back(
        T::Named("Login", 9, kRight, [](const L& l, const ReportOptions&) { return l.login; }));
    defs.push_back(T::Titled("Proper", "Proper Name", 15, kRight,
                             [](const L& l, const ReportOptions&) { return l.proper_name; }));
  }
  // Used before Unmeasured: "U" is Used.
  defs.push_back(T::Named("Used", 10, kRight,
                          [](const L& l, const ReportOptions& c) { return PlainTime(l.used, c); }));
  defs.push_back(T::Named("Unmeasured", 10, kRight, [](const L& l, const ReportOptions& c) {
    return PlainTime(l.unmeasured, c);
  }));
  return T(defs, kUnknownField);
}

std::string GpuEfficiencyDefault(bool by_account) {
  return fmt::format("Cluster,{}Account,Allocated,Used,Efficiency,Unmeasured,Jobs",
                     by_account ? "" : "Login,Proper,");
}

// --- Shared ----------------------------------------------------------------

// options.format's columns, or the report's own.
template <typename Row>
std::vector<ChosenColumn> Chosen(const Table<Row>& table, std::string_view own,
                                 const ReportOptions& o) {
  if (!o.format.empty()) {
    Result<std::vector<ChosenColumn>> chosen = table.Parse(o.format);
    if (chosen.ok()) return std::move(chosen).value();
  }
  Result<std::vector<ChosenColumn>> chosen = table.Parse(own);
  return chosen.ok() ? std::move(chosen).value() : std::vector<ChosenColumn>{};
}

template <typename Row>
Status Check(const Table<Row>& table, const ReportOptions& o) {
  return table.Parse(o.format).status();
}

// The chosen columns, then `after` (values from `after_value`), in o.layout.
template <typename Row>
std::string Render(const Table<Row>& table, const std::vector<ChosenColumn>& chosen,
                   const std::vector<Row>& rows, const ReportOptions& o,
                   std::span<const TableColumn> after = {},
                   std::string (*after_value)(const Row& row, size_t i) = nullptr) {
  std::vector<TableColumn> shown = table.Shown(chosen);
  shown.insert(shown.end(), after.begin(), after.end());
  std::string out;
  if (!o.no_header) format::AppendTableHeader(out, shown, o.layout);
  for (const Row& row : rows) {
    format::AppendTableLine(out, shown, o.layout, [&](size_t i) {
      return i < chosen.size() ? table.Value(chosen[i], row, o)
                               : after_value(row, i - chosen.size());
    });
  }
  return out;
}

}  // namespace

std::optional<std::string_view> FormatCondition(std::string_view word) {
  constexpr std::string_view kKey = "format=";
  if (word.size() < kKey.size() || !EqualsIgnoreCase(word.substr(0, kKey.size()), kKey)) {
    return std::nullopt;
  }
  return word.substr(kKey.size());
}

Status CheckSreportFormat(SreportReport report, const ReportOptions& o) {
  if (o.format.empty()) return Status::Ok();
  switch (report) {
    case SreportReport::kUtilization:
      return Check(UtilizationFields(o), o);
    case SreportReport::kTopUsage:
    case SreportReport::kAccountUtilizationByUser:
    case SreportReport::kUserUtilizationByAccount:
      return Check(UsageFields(report, o), o);
    case SreportReport::kSizesByAccount:
      return Check(SizesFields(), o);
    case SreportReport::kGpuEfficiencyByUser:
      return Check(GpuEfficiencyFields(false), o);
    case SreportReport::kGpuEfficiencyByAccount:
      return Check(GpuEfficiencyFields(true), o);
  }
  return Status::Ok();
}

std::vector<std::string> DropUnknownFields(SreportReport report, ReportOptions& o) {
  std::vector<std::string> unknown;
  std::string kept;
  ReportOptions one = o;
  for (std::string_view item : format::SplitFieldList(o.format)) {
    one.format = std::string(item);
    if (Status known = CheckSreportFormat(report, one); !known.ok()) {
      unknown.push_back(known.message());
      continue;
    }
    if (!kept.empty()) kept += ',';
    kept += item;
  }
  if (!unknown.empty()) o.format = kept;
  return unknown;
}

std::string RenderUtilization(const std::vector<UtilizationLine>& lines, const ReportOptions& o) {
  const Table<UtilizationLine> table = UtilizationFields(o);
  return Render(table, Chosen(table, UtilizationDefault(o), o), lines, o);
}

std::string RenderUsage(SreportReport report, const std::vector<UsageLine>& lines,
                        const ReportOptions& o) {
  const Table<UsageLine> table = UsageFields(report, o);
  return Render(table, Chosen(table, UsageDefault(report, o), o), lines, o);
}

std::string RenderSizes(const std::vector<SizesLine>& lines,
                        const std::vector<TableColumn>& size_columns, const ReportOptions& o) {
  const Table<SizesLine> table = SizesFields();
  return Render<SizesLine>(
      table, Chosen(table, kSizesDefault, o), lines, o, size_columns,
      [](const SizesLine& l, size_t i) { return i < l.cells.size() ? l.cells[i] : std::string(); });
}

std::string RenderGpuEfficiency(bool by_account, const std::vector<GpuEfficiencyLine>& lines,
                                const ReportOptions& o) {
  const Table<GpuEfficiencyLine> table = GpuEfficiencyFields(by_account);
  return Render(table, Chosen(table, GpuEfficiencyDefault(by_account), o), lines, o);
}

}  // namespace rota::cli
