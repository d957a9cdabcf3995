// Issues::to_display_string: cel-go's Errors.ToDisplayString and Error.ToDisplayString (common/errors.go,
// common/error.go): issues sorted by position, each with its source line and a caret under the column, where the
// dots and caret are full-width (U+FF0E, U+FF3E) under characters wider than one UTF-8 byte.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "base/utf8.h"
#include "cel/compile.h"

namespace kapi::cel {
namespace {

constexpr std::size_t kMaxErrorsToReport = 100;
constexpr std::size_t kMaxSnippetLength = 16384;

struct Located {
  std::int32_t line = -1;  // cel-go's NoLocation: line -1, column -1 (shown as ":-1:0")
  std::int32_t column = -1;
  const Issue* issue = nullptr;
};

// Wider than one UTF-8 byte: every rune from U+0080 on (a malformed byte already stands as U+FFFD here).
bool is_wide(char32_t c) { return c >= 0x80; }

}  // namespace

std::string Issues::to_display_string(const std::string& source, const SourceInfo& info) const {
  std::u32string text;
  {
    std::string_view rest = source;
    while (!rest.empty()) {
      base::Rune rune = base::decode_rune(rest);
      text.push_back(rune.value);
      rest.remove_prefix(rune.width);
    }
  }
  std::vector<std::size_t> line_starts{0};
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') line_starts.push_back(i + 1);
  }

  // cel-go keeps the first 100 errors reported and counts the rest.
  std::vector<Located> located;
  for (const Issue& issue : errors) {
    if (located.size() == kMaxErrorsToReport) break;
    Located l{.issue = &issue};
    std::int32_t offset = issue.offset;
    if (offset < 0 && issue.expr_id != 0) {
      auto it = info.positions.find(issue.expr_id);
      if (it != info.positions.end()) offset = it->second;
    }
    if (offset >= 0) {
      auto after = std::upper_bound(line_starts.begin(), line_starts.end(), static_cast<std::size_t>(offset));
      l.line = static_cast<std::int32_t>(after - line_starts.begin());
      l.column = offset - static_cast<std::int32_t>(line_starts[static_cast<std::size_t>(l.line - 1)]);
    }
    located.push_back(l);
  }
  std::stable_sort(located.begin(), located.end(), [](const Located& a, const Located& b) {
    return a.line < b.line || (a.line == b.line && a.column < b.column);
  });

  const std::string& description = info.description.empty() ? std::string("<input>") : info.description;
  // A line's snippet is built once however many issues point into it: a fuzzed expression can carry a hundred
  // issues on one long line.
  std::vector<std::optional<std::string>> snippets(line_starts.size());
  std::string out;
  for (const Located& l : located) {
    if (&l != &located.front()) out += '\n';
    out.append("ERROR: ").append(description).append(":").append(std::to_string(l.line));
    out.append(":").append(std::to_string(l.column + 1)).append(": ").append(l.issue->message);
    if (l.line < 1 || static_cast<std::size_t>(l.line) > line_starts.size() || text.empty()) continue;
    const auto index = static_cast<std::size_t>(l.line - 1);
    const std::size_t begin = line_starts[index];
    const std::size_t end = index + 1 < line_starts.size() ? line_starts[index + 1] - 1 : text.size();
    std::u32string_view line = std::u32string_view(text).substr(begin, end - begin);
    std::optional<std::string>& snippet = snippets[index];
    if (!snippet) {
      snippet.emplace();
      for (char32_t c : line) base::append_utf8(*snippet, c == '\t' ? U' ' : c);
    }
    if (snippet->size() > kMaxSnippetLength) continue;
    out.append("\n | ").append(*snippet).append("\n | ");
    std::size_t i = 0;
    for (; i < static_cast<std::size_t>(std::max(l.column, 0)) && i < line.size(); ++i) {
      out.append(is_wide(line[i]) ? "\uff0e" : ".");
    }
    out.append(i < line.size() && is_wide(line[i]) ? "\uff3e" : "^");
  }
  if (errors.size() > kMaxErrorsToReport) {
    out += "\n" + std::to_string(errors.size() - kMaxErrorsToReport) + " more errors were truncated";
  }
  return out;
}

}  // namespace kapi::cel
