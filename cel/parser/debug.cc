// debug_string(Expr): cel-go's debug.ToDebugString / ToAdornedDebugString (common/debug/debug.go), the form
// cel-go's parser_test.go states its expected ASTs in.
#include "cel/parser/debug.h"

#include "base/go_quote.h"
#include "base/go_strconv.h"

namespace kapi::cel::parser {
namespace {

class DebugWriter {
 public:
  explicit DebugWriter(const DebugAdorner& adorner) : adorner_(adorner) {}

  void buffer(const Expr& e) {
    std::visit([&](const auto& kind) { write(kind); }, e.kind);
    if (adorner_.expr) append(adorner_.expr(e));
  }

  std::string take() { return std::move(out_); }

 private:
  void write(const std::monostate&) {}
  void write(const Constant& c) { append(format_constant(c)); }
  void write(const IdentExpr& i) { append(i.name); }
  void write(const SelectExpr& s) {
    if (s.operand) buffer(*s.operand);
    append(".");
    append(s.field);
    if (s.test_only) append("~test-only~");
  }
  void write(const CallExpr& c) {
    if (c.target) {
      buffer(*c.target);
      append(".");
    }
    append(c.function);
    append("(");
    if (!c.args.empty()) {
      ++indent_;
      line();
      for (std::size_t i = 0; i < c.args.size(); ++i) {
        if (i > 0) {
          append(",");
          line();
        }
        buffer(c.args[i]);
      }
      --indent_;
      line();
    }
    append(")");
  }
  void write(const ListExpr& l) {
    append("[");
    if (!l.elements.empty()) {
      line();
      ++indent_;
      for (std::size_t i = 0; i < l.elements.size(); ++i) {
        if (i > 0) {
          append(",");
          line();
        }
        buffer(l.elements[i]);
      }
      --indent_;
      line();
    }
    append("]");
  }
  void write(const StructExpr& s) {
    append(s.message_name);
    append("{");
    if (!s.fields.empty()) {
      line();
      ++indent_;
      for (std::size_t i = 0; i < s.fields.size(); ++i) {
        const StructField& f = s.fields[i];
        if (i > 0) {
          append(",");
          line();
        }
        if (f.optional) append("?");
        append(f.name);
        append(":");
        if (f.value) buffer(*f.value);
        if (adorner_.entry) append(adorner_.entry(f.id));
      }
      --indent_;
      line();
    }
    append("}");
  }
  void write(const MapExpr& m) {
    append("{");
    if (!m.entries.empty()) {
      line();
      ++indent_;
      for (std::size_t i = 0; i < m.entries.size(); ++i) {
        const MapEntry& e = m.entries[i];
        if (i > 0) {
          append(",");
          line();
        }
        if (e.optional) append("?");
        if (e.key) buffer(*e.key);
        append(":");
        if (e.value) buffer(*e.value);
        if (adorner_.entry) append(adorner_.entry(e.id));
      }
      --indent_;
      line();
    }
    append("}");
  }
  void write(const ComprehensionExpr& c) {
    append("__comprehension__(");
    ++indent_;
    line();
    append("// Variable");
    line();
    append(c.iter_var);
    append(",");
    line();
    if (!c.iter_var2.empty()) {
      append(c.iter_var2);
      append(",");
      line();
    }
    append("// Target");
    line();
    if (c.iter_range) buffer(*c.iter_range);
    append(",");
    line();
    append("// Accumulator");
    line();
    append(c.accu_var);
    append(",");
    line();
    append("// Init");
    line();
    if (c.accu_init) buffer(*c.accu_init);
    append(",");
    line();
    append("// LoopCondition");
    line();
    if (c.loop_condition) buffer(*c.loop_condition);
    append(",");
    line();
    append("// LoopStep");
    line();
    if (c.loop_step) buffer(*c.loop_step);
    append(",");
    line();
    append("// Result");
    line();
    if (c.result) buffer(*c.result);
    append(")");
    --indent_;
  }

  static std::string format_constant(const Constant& c) {
    struct Formatter {
      std::string operator()(const NullLiteral&) const { return "null"; }
      std::string operator()(bool b) const { return b ? "true" : "false"; }
      std::string operator()(std::int64_t i) const { return std::to_string(i); }
      std::string operator()(std::uint64_t u) const { return std::to_string(u) + "u"; }
      std::string operator()(double d) const { return base::go_format_float(d); }
      std::string operator()(const std::string& s) const { return base::go_quote(s); }
      std::string operator()(const BytesLiteral& b) const { return "b\"" + b.bytes + "\""; }
    };
    return std::visit(Formatter{}, c);
  }

  void append(std::string_view s) {
    if (line_start_) {
      line_start_ = false;
      out_.append(static_cast<std::size_t>(indent_) * 2, ' ');
    }
    out_ += s;
  }
  void line() {
    out_ += '\n';
    line_start_ = true;
  }

  const DebugAdorner& adorner_;
  std::string out_;
  int indent_ = 0;
  bool line_start_ = true;
};

}  // namespace

std::string adorned_debug_string(const Expr& expr, const DebugAdorner& adorner) {
  DebugWriter writer(adorner);
  writer.buffer(expr);
  return writer.take();
}

}  // namespace kapi::cel::parser

namespace kapi::cel {

std::string debug_string(const Expr& expr) { return parser::adorned_debug_string(expr, {}); }

}  // namespace kapi::cel
