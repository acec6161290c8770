#include "cli/submit/batch_script.h"

#include <fstream>

#include "common/strings.h"

namespace rota::cli {
namespace {

Status SbatchError(std::string_view text) {
  return InvalidArgument("sbatch: error: " + std::string(text));
}

// What the controller answers for a script or environment over
// max_script_size; sbatch tells it without sending them.
Status TooLarge() {
  return InvalidArgument(
      "sbatch: error: Batch job submission failed: "
      "Pathname of a file, directory or other parameter too long");
}

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

// Splits a directive's text the way Slurm does: quotes group, and are dropped.
std::vector<std::string> SplitDirectiveArgs(std::string_view text) {
  std::vector<std::string> args;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && IsBlank(text[i])) ++i;
    if (i == text.size() || text[i] == '#') break;  // End, or a trailing comment.
    std::string arg;
    char quote = 0;
    while (i < text.size() && (quote != 0 || !IsBlank(text[i]))) {
      const char c = text[i++];
      if (quote == 0 && (c == '"' || c == '\'')) {
        quote = c;
      } else if (c == quote) {
        quote = 0;
      } else {
        arg += c;
      }
    }
    // An unclosed quote runs to the end of the line, as in Slurm.
    args.push_back(std::move(arg));
  }
  return args;
}

std::string_view BaseName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string WrapScript(std::string_view command) {
  return "#!/bin/sh\n# This script was created by sbatch --wrap.\n\n" + std::string(command) + "\n";
}

Result<std::string> ReadBatchScript(const std::string& path, std::istream& in, uint64_t max_bytes) {
  std::ifstream file;
  if (!path.empty()) {
    file.open(path, std::ios::binary);
    if (!file) return SbatchError("Unable to open file " + path);
  }
  std::istream& from = path.empty() ? in : file;
  std::string text;
  char chunk[65536];
  while (from) {
    from.read(chunk, sizeof chunk);
    text.append(chunk, static_cast<size_t>(from.gcount()));
    if (text.size() > max_bytes) return TooLarge();
  }
  if (from.bad()) return SbatchError("Unable to open file " + path);
  return text;
}

Status CheckBatchScript(std::string_view script) {
  if (script.empty()) return SbatchError("Batch script is empty!");
  if (script.find('\0') != std::string_view::npos) {
    return SbatchError("Batch script contains NULL character");
  }
  if (Trim(script).empty()) return SbatchError("Batch script contains only whitespace!");
  if (!script.starts_with("#!")) {
    return SbatchError(
        "This does not look like a batch script.  The first\n"
        "sbatch: error: line must start with #! followed by the path to an interpreter.\n"
        "sbatch: error: For instance: #!/bin/sh");
  }
  if (script.find("\r\n") != std::string_view::npos) {
    return SbatchError(
        "Batch script contains DOS line breaks (\\r\\n)\n"
        "sbatch: error: instead of expected UNIX line breaks (\\n).");
  }
  return Status::Ok();
}

std::vector<ScriptDirective> ExtractDirectives(std::string_view script, std::string_view prefix) {
  std::vector<ScriptDirective> directives;
  int line_number = 0;
  for (std::string_view line : Split(script, '\n')) {
    ++line_number;
    if (line.starts_with(prefix) &&
        (line.size() == prefix.size() || IsBlank(line[prefix.size()]))) {
      ScriptDirective directive{line_number, SplitDirectiveArgs(line.substr(prefix.size()))};
      if (!directive.args.empty()) directives.push_back(std::move(directive));
      continue;
    }
    const std::string_view trimmed = Trim(line);
    if (!trimmed.empty() && trimmed.front() != '#') break;  // The first command.
  }
  return directives;
}

Result<ParsedJobOptions> ParseSbatchInvocation(const std::vector<std::string>& args,
                                               const JobOptionsContext& context, std::istream& in) {
  // First pass, command line only: where is the script?
  Result<ParsedJobOptions> first =
      ParseJobOptions(Command::kSbatch, {args, {}, /*partial=*/true}, context);
  if (!first.ok() || first->help || first->usage || first->version) return first;

  std::string script;
  std::string default_name;
  if (first->wrap_given) {
    if (!first->positional.empty()) {
      return SbatchError("Script arguments not permitted with --wrap option");
    }
    script = WrapScript(first->wrap);
    default_name = "wrap";
  } else {
    const std::string path = first->positional.empty() ? "" : first->positional.front();
    Result<std::string> text = ReadBatchScript(path, in, context.max_script_bytes);
    if (!text.ok()) return text.status();
    script = std::move(text).value();
    default_name = path.empty() ? "sbatch" : std::string(BaseName(path));
  }
  ROTA_RETURN_IF_ERROR(CheckBatchScript(script));

  Result<ParsedJobOptions> parsed =
      ParseJobOptions(Command::kSbatch, {args, ExtractDirectives(script)}, context);
  if (!parsed.ok()) return parsed;
  uint64_t environment_bytes = 0;
  for (const std::string& var : parsed->spec.environment()) environment_bytes += var.size() + 1;
  if (script.size() > context.max_script_bytes || environment_bytes > context.max_script_bytes) {
    return TooLarge();
  }
  parsed->spec.set_script(std::move(script));
  if (parsed->spec.name().empty()) parsed->spec.set_name(default_name);
  return parsed;
}

}  // namespace rota::cli
