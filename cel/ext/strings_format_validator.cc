// cel-go's stringFormatValidator (ext/formatting.go, v0.22): static checks of string.format calls with a literal
// format string and a list literal of arguments, against the checked types of the arguments.
#include <algorithm>
#include <optional>

#include "cel/ext/strings_format.h"

namespace kapi::cel::ext {
namespace {

// A failed clause: the node to report at and cel-go's message.
struct FormatIssue {
  std::int64_t id;
  std::string message;
};

class FormatCallChecker {
 public:
  FormatCallChecker(const CheckedAst& ast, const std::vector<Expr>& args) : ast_(ast), args_(args) {}

  // parseFormatString with the checker's callbacks; std::nullopt when every clause fits its argument.
  std::optional<FormatIssue> check(std::int64_t call_id, const std::string& format) {
    std::size_t arg_index = 0;
    for (std::size_t i = 0; i < format.size();) {
      if (format[i] != '%') {
        ++i;
        continue;
      }
      if (i + 1 < format.size() && format[i + 1] == '%') {
        i += 2;
        continue;
      }
      ++requested_;
      if (i + 1 >= format.size()) return FormatIssue{call_id, "unexpected end of string"};
      if (arg_index >= args_.size()) return FormatIssue{call_id, "index " + std::to_string(arg_index) + " out of range"};
      std::size_t at = i + 1;
      if (format[at] == '.') {
        ++at;
        std::string digits;
        while (at < format.size() && format[at] >= '0' && format[at] <= '9') digits += format[at++];
        if (at >= format.size())
          return FormatIssue{call_id,
                             "could not parse formatting clause: error while parsing precision: could not find end of "
                             "precision specifier"};
        if (digits.empty())
          return FormatIssue{call_id,
                             "could not parse formatting clause: error while parsing precision: error while converting "
                             "precision to integer: strconv.Atoi: parsing \"\": invalid syntax"};
      }
      const char verb = format[at];
      if (std::string_view("sdfebxXo").find(verb) == std::string_view::npos) {
        std::string clause(1, verb);
        return FormatIssue{call_id, "could not parse formatting clause: unrecognized formatting clause \"" + clause + "\""};
      }
      if (auto issue = check_clause(verb, args_[arg_index])) return issue;
      i = at + 1;
      ++arg_index;
    }
    return std::nullopt;
  }

  std::size_t requested() const { return requested_; }

 private:
  const Type& type_of(const Expr& e) const { return ast_.type_of(e.id); }

  bool one_of(const Expr& e, std::initializer_list<TypeKind> kinds) const {
    const TypeKind kind = type_of(e).kind();
    return kind == TypeKind::kDyn || std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
  }

  std::string type_name(const Expr& e) const { return std::string(type_of(e).name()); }

  // verifyString: the argument (and, inside list and map literals, every element) has a %s form.
  const Expr* unprintable(const Expr& e) const {
    if (!one_of(e, {TypeKind::kList, TypeKind::kMap, TypeKind::kInt, TypeKind::kUint, TypeKind::kDouble,
                    TypeKind::kBool, TypeKind::kString, TypeKind::kTimestamp, TypeKind::kBytes, TypeKind::kDuration,
                    TypeKind::kType, TypeKind::kNull}))
      return &e;
    if (const auto* list = std::get_if<ListExpr>(&e.kind)) {
      for (const Expr& element : list->elements)
        if (const Expr* bad = unprintable(element)) return bad;
    } else if (const auto* map = std::get_if<MapExpr>(&e.kind)) {
      for (const MapEntry& entry : map->entries) {
        if (const Expr* bad = unprintable(*entry.key)) return bad;
        if (const Expr* bad = unprintable(*entry.value)) return bad;
      }
    }
    return nullptr;
  }

  std::optional<FormatIssue> check_clause(char verb, const Expr& arg) const {
    const auto fail = [&](const Expr& at, const std::string& what) {
      return FormatIssue{at.id, "error during formatting: " + what + ", was given " + type_name(at)};
    };
    switch (verb) {
      case 's':
        if (const Expr* bad = unprintable(arg))
          return fail(*bad, "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, "
                            "types, durations, and timestamps");
        return std::nullopt;
      case 'd':
        if (one_of(arg, {TypeKind::kInt, TypeKind::kUint})) return std::nullopt;
        return fail(arg, "decimal clause can only be used on integers");
      case 'f':
        if (one_of(arg, {TypeKind::kDouble, TypeKind::kString})) return std::nullopt;
        return fail(arg, "fixed-point clause can only be used on doubles");
      case 'e':
        if (one_of(arg, {TypeKind::kDouble, TypeKind::kString})) return std::nullopt;
        return fail(arg, "scientific clause can only be used on doubles");
      case 'b':
        if (one_of(arg, {TypeKind::kInt, TypeKind::kUint, TypeKind::kBool})) return std::nullopt;
        return fail(arg, "only integers and bools can be formatted as binary");
      case 'x':
      case 'X':
        if (one_of(arg, {TypeKind::kInt, TypeKind::kUint, TypeKind::kString, TypeKind::kBytes})) return std::nullopt;
        return fail(arg, "only integers, byte buffers, and strings can be formatted as hex");
      case 'o':
        if (one_of(arg, {TypeKind::kInt, TypeKind::kUint})) return std::nullopt;
        return fail(arg, "octal clause can only be used on integers");
      default:
        return std::nullopt;
    }
  }

  const CheckedAst& ast_;
  const std::vector<Expr>& args_;
  std::size_t requested_ = 0;
};

bool resolves_to_string_format(const CheckedAst& ast, std::int64_t id) {
  auto it = ast.references.find(id);
  if (it == ast.references.end() || it->second.overload_ids.empty()) return true;
  const auto& ids = it->second.overload_ids;
  return std::find(ids.begin(), ids.end(), "string_format") != ids.end();
}

// The tree's depth is bounded by the parser's recursion limit.
void visit(const CheckedAst& ast, const Expr& e, Issues& issues) {
  std::visit(
      [&](const auto& node) {
        using T = std::decay_t<decltype(node)>;
        if constexpr (std::is_same_v<T, SelectExpr>) {
          if (node.operand) visit(ast, *node.operand, issues);
        } else if constexpr (std::is_same_v<T, CallExpr>) {
          if (node.target) visit(ast, *node.target, issues);
          for (const Expr& arg : node.args) visit(ast, arg, issues);
          if (node.function != "format" || !node.target || node.args.size() != 1) return;
          const auto* literal = std::get_if<Constant>(&node.target->kind);
          const std::string* format = literal ? std::get_if<std::string>(literal) : nullptr;
          const auto* list = std::get_if<ListExpr>(&node.args[0].kind);
          if (!format || !list || !resolves_to_string_format(ast, e.id)) return;
          FormatCallChecker checker(ast, list->elements);
          if (auto issue = checker.check(e.id, *format)) {
            issues.errors.push_back(Issue{issue->id, -1, issue->message});
          } else if (list->elements.size() > checker.requested()) {
            issues.errors.push_back(Issue{e.id, -1,
                                          "too many arguments supplied to string.format (expected " +
                                              std::to_string(checker.requested()) + ", got " +
                                              std::to_string(list->elements.size()) + ")"});
          }
        } else if constexpr (std::is_same_v<T, ListExpr>) {
          for (const Expr& element : node.elements) visit(ast, element, issues);
        } else if constexpr (std::is_same_v<T, MapExpr>) {
          for (const MapEntry& entry : node.entries) {
            visit(ast, *entry.key, issues);
            visit(ast, *entry.value, issues);
          }
        } else if constexpr (std::is_same_v<T, StructExpr>) {
          for (const StructField& field : node.fields) visit(ast, *field.value, issues);
        } else if constexpr (std::is_same_v<T, ComprehensionExpr>) {
          for (const auto* part : {&node.iter_range, &node.accu_init, &node.loop_condition, &node.loop_step,
                                   &node.result})
            if (*part) visit(ast, **part, issues);
        }
      },
      e.kind);
}

}  // namespace

void validate_format_calls(const CheckedAst& ast, Issues& issues) { visit(ast, ast.root, issues); }

}  // namespace kapi::cel::ext
