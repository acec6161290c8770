// docs/options.md against the option tables of the commands other than
// sbatch, srun and salloc ("The other commands"): every option a command
// takes has its row, with its letter, and every row is an option the command
// takes (a refused one is taken too, to say why it is refused).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "cli/accounting/sacct_option_table.h"
#include "cli/accounting/sacctmgr_option_table.h"
#include "cli/accounting/sreport_option_table.h"
#include "cli/accounting/sstat_option_table.h"
#include "cli/query/sdiag_option_table.h"
#include "cli/query/sinfo_option_table.h"
#include "cli/query/sprio_option_table.h"
#include "cli/query/squeue_option_table.h"
#include "cli/query/sshare_option_table.h"
#include "cli/scancel_option_table.h"
#include "cli/scontrol_option_table.h"
#include "common/strings.h"
#include "testing/option_doc_cells.h"

namespace rota::cli {
namespace {

struct CommandTable {
  std::string name;
  std::span<const option> long_options;  // Ends with the all-null entry
  std::string short_options;
  std::span<const RefusedOption> refused;
};

std::vector<CommandTable> Tables() {
  return {
      {"squeue", squeue_options::kLong, squeue_options::kShort, squeue_options::kRefused},
      {"sinfo", sinfo_options::kLong, sinfo_options::kShort, sinfo_options::kRefused},
      {"sprio", sprio_options::kLong, sprio_options::kShort, sprio_options::kRefused},
      {"sshare", sshare_options::kLong, sshare_options::kShort, sshare_options::kRefused},
      {"sdiag", sdiag_options::kLong, sdiag_options::kShort, sdiag_options::kRefused},
      {"scancel", scancel_options::kLong, scancel_options::kShort, scancel_options::kRefused},
      {"sacct", sacct_options::kLong, sacct_options::kShort, sacct_options::kRefused},
      {"sacctmgr", sacctmgr_options::kLong, sacctmgr_options::kShort, sacctmgr_options::kRefused},
      {"sstat", sstat_options::kLong, sstat_options::kShort, sstat_options::kRefused},
      {"scontrol", scontrol_options::kLong, scontrol_options::kShort, scontrol_options::kRefused},
      {"sreport", sreport_options::kLong, sreport_options::kShort, sreport_options::kRefused}};
}

// A row of a command's table in the docs: its option names and its status.
struct DocRow {
  std::vector<std::string> long_names;
  std::vector<char> letters;
  std::string status;
};

// "### NAME" sections under "## The other commands", by command.
std::map<std::string, std::vector<DocRow>> RowsOfTheDocs() {
  std::ifstream in(std::string(ROTA_SOURCE_DIR) + "/docs/options.md");
  std::map<std::string, std::vector<DocRow>> rows;
  std::string line;
  bool in_part = false;
  std::string command;
  while (std::getline(in, line)) {
    if (line.starts_with("## ")) {
      in_part = line == "## The other commands";
      command.clear();
      continue;
    }
    if (!in_part) continue;
    if (line.starts_with("### ")) {
      command = line.substr(4);
      continue;
    }
    if (command.empty() || !line.starts_with("| `")) continue;
    std::vector<std::string_view> cells = Split(line, '|');  // "", option, status, notes, ""
    if (cells.size() < 4) continue;
    DocRow row;
    row.status = std::string(Trim(cells[2]));
    testing::OptionNames names = testing::OptionNamesOfCell(cells[1]);
    row.long_names = std::move(names.long_names);
    row.letters = std::move(names.letters);
    rows[command].push_back(std::move(row));
  }
  return rows;
}

// The letters of a getopt short option string.
std::vector<char> LettersOf(const std::string& short_options) {
  std::vector<char> letters;
  for (char c : short_options) {
    if (c != ':' && c != '+' && c != '-') letters.push_back(c);
  }
  return letters;
}

TEST(CommandOptionTablesTest, TheDocsListEveryOptionOfEachCommandAndNoOther) {
  const std::map<std::string, std::vector<DocRow>> docs = RowsOfTheDocs();
  for (const CommandTable& table : Tables()) {
    SCOPED_TRACE(table.name);
    auto it = docs.find(table.name);
    ASSERT_NE(it, docs.end()) << "no \"### " << table.name << "\" table in docs/options.md";
    const std::vector<DocRow>& rows = it->second;
    const std::vector<char> letters = LettersOf(table.short_options);
    auto documented = [&](const std::string& name, char letter) {
      return std::any_of(rows.begin(), rows.end(), [&](const DocRow& row) {
        const bool named =
            std::find(row.long_names.begin(), row.long_names.end(), name) != row.long_names.end();
        const bool lettered =
            std::find(row.letters.begin(), row.letters.end(), letter) != row.letters.end();
        return (name.empty() || named) && (letter == 0 || lettered);
      });
    };
    // Code to docs: each long option (an alias such as --usage for -h may
    // share its letter with another row)...
    for (const option& o : table.long_options) {
      if (o.name == nullptr) break;
      EXPECT_TRUE(documented(o.name, 0)) << "--" << o.name << " has no row in docs/options.md";
    }
    // ... and each letter.
    for (char letter : letters) {
      EXPECT_TRUE(documented("", letter)) << "-" << letter << " has no row in docs/options.md";
    }
    // Docs to code: every row's names and letters are taken.
    for (const DocRow& row : rows) {
      for (const std::string& name : row.long_names) {
        const bool taken =
            std::any_of(table.long_options.begin(), table.long_options.end(),
                        [&](const option& o) { return o.name != nullptr && name == o.name; });
        EXPECT_TRUE(taken) << "docs/options.md lists --" << name << ", which is not taken";
      }
      for (char letter : row.letters) {
        EXPECT_NE(std::find(letters.begin(), letters.end(), letter), letters.end())
            << "docs/options.md lists -" << letter << ", which is not taken";
      }
    }
    // Refused options: a "refused" row for each, and each such row refused.
    for (const DocRow& row : rows) {
      const bool refused_here =
          std::any_of(table.refused.begin(), table.refused.end(), [&](const RefusedOption& r) {
            return std::find(row.long_names.begin(), row.long_names.end(), r.name) !=
                   row.long_names.end();
          });
      EXPECT_EQ(row.status.starts_with("refused"), refused_here)
          << "--" << (row.long_names.empty() ? "?" : row.long_names[0])
          << ": the docs' status is \"" << row.status << "\"";
    }
  }
}

}  // namespace
}  // namespace rota::cli
