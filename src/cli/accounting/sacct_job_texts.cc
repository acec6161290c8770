#include "cli/accounting/sacct_job_texts.h"

#include "cli/accounting/sacct_fields.h"

namespace rota::cli {

std::string RenderSacctJobTexts(const std::vector<wire::AccountingJob>& jobs, SacctJobText which) {
  const bool script = which == SacctJobText::kScript;
  std::string out;
  for (const wire::AccountingJob& job : jobs) {
    const std::string& text = script ? job.script() : job.environment();
    out += script ? "Batch Script for " : "Environment used for ";
    out += SacctJobIdText(job);
    out += script ? "\n" : " (must be batch to display)\n";
    out += std::string(80, '-');
    out += '\n';
    out += text.empty() ? "NONE\n" : text;
    out += '\n';
  }
  return out;
}

}  // namespace rota::cli
