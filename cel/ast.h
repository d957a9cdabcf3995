#pragma once
// CEL's abstract syntax tree, as cel-go's common/ast holds it (and google.api.expr.v1alpha1.Expr describes it):
// every node has an id unique within its expression; macros (has, all, exists, exists_one, map, filter) are
// already expanded by the parser into Select(test_only) and Comprehension nodes, as cel-go expands them.
//
// Contract:
// - A ParsedAst is what the parser returns; a CheckedAst adds the type of every node and what each identifier and
//   call resolved to. Both are plain values: they own their nodes, move cheaply and may be shared read-only across
//   threads once built (a Program keeps the CheckedAst it was planned from).
// - Operators are calls of cel-go's operator functions ("_+_", "_&&_", "_?_:_", "_[_]", "!_", "-_", "@in",
//   "_[?_]", "_?._", "@not_strictly_false"); see operators.h.
// - Source positions are code-point offsets into the expression text (cel-go's convention), kept per node id in
//   SourceInfo so errors can name line and column.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "cel/types.h"

namespace kapi::cel {

struct Expr;

// A literal as written. Bytes literals are kept apart from strings: both hold raw bytes in a std::string.
struct NullLiteral {
  bool operator==(const NullLiteral&) const = default;
};
struct BytesLiteral {
  std::string bytes;
  bool operator==(const BytesLiteral&) const = default;
};
using Constant = std::variant<NullLiteral, bool, std::int64_t, std::uint64_t, double, std::string, BytesLiteral>;

struct IdentExpr {
  std::string name;
};

// `operand.field`, or `has(operand.field)` when test_only.
struct SelectExpr {
  std::unique_ptr<Expr> operand;
  std::string field;
  bool test_only = false;
};

// `function(args...)` when target is null, `target.function(args...)` otherwise.
struct CallExpr {
  std::unique_ptr<Expr> target;
  std::string function;
  std::vector<Expr> args;
};

// `[a, ?b]`: optional_indices are the positions of elements written with `?`.
struct ListExpr {
  std::vector<Expr> elements;
  std::vector<std::int32_t> optional_indices;
};

struct MapEntry {
  std::int64_t id = 0;
  std::unique_ptr<Expr> key;
  std::unique_ptr<Expr> value;
  bool optional = false;  // `{?k: v}`
};
struct MapExpr {
  std::vector<MapEntry> entries;
};

// `Name{field: value}`: a message literal. kapi declares no message types, so the checker refuses these, but the
// parser accepts them as cel-go's does so errors come from the same place.
struct StructField {
  std::int64_t id = 0;
  std::string name;
  std::unique_ptr<Expr> value;
  bool optional = false;
};
struct StructExpr {
  std::string message_name;
  std::vector<StructField> fields;
};

// A fold, as macros expand into: for iter_var in iter_range, while loop_condition, accu_var = loop_step; result.
struct ComprehensionExpr {
  std::string iter_var;
  std::unique_ptr<Expr> iter_range;
  std::string accu_var;
  std::unique_ptr<Expr> accu_init;
  std::unique_ptr<Expr> loop_condition;
  std::unique_ptr<Expr> loop_step;
  std::unique_ptr<Expr> result;
  // The second variable of a two-variable comprehension (ext.TwoVarComprehensions: `m.all(k, v, p)`): the value
  // (map) or the element (list) while iter_var holds the key or index. Empty for the one-variable macros.
  std::string iter_var2;
};

struct Expr {
  std::int64_t id = 0;
  // monostate: an unset node (only in a tree the parser gave up on).
  std::variant<std::monostate, Constant, IdentExpr, SelectExpr, CallExpr, ListExpr, MapExpr, StructExpr,
               ComprehensionExpr>
      kind;

  Expr clone() const;  // a deep copy, same ids
};

// The accumulator variable macros use (cel-go's parser.AccumulatorName).
inline constexpr std::string_view kAccumulatorName = "@result";

struct SourceInfo {
  std::string description = "<input>";            // what error messages call the source
  std::vector<std::int32_t> line_offsets;         // code-point offset where each line after the first starts
  std::unordered_map<std::int64_t, std::int32_t> positions;  // node id -> code-point offset
  // node id of an expanded macro -> the call as written (for messages that show the macro, and cost estimates).
  std::unordered_map<std::int64_t, Expr> macro_calls;

  struct Location {
    std::int32_t line = 1;    // 1-based
    std::int32_t column = 0;  // 0-based, in code points (cel-go's)
  };
  std::optional<Location> location_of(std::int64_t id) const;
  Location location_at(std::int32_t offset) const;
};

struct ParsedAst {
  std::string source;  // the expression text
  Expr root;
  SourceInfo source_info;
};

// What an identifier or a call resolved to during checking.
struct Reference {
  std::string name;                       // the variable's full name, for identifiers (and qualified selects)
  std::vector<std::string> overload_ids;  // for calls: the overloads that may apply, most specific first
  std::optional<Constant> value;          // for identifiers that are constants (enums)
};

struct CheckedAst {
  std::string source;
  Expr root;
  SourceInfo source_info;
  std::unordered_map<std::int64_t, Type> types;            // every node's type
  std::unordered_map<std::int64_t, Reference> references;  // identifiers, qualified selects and calls

  const Type& type_of(std::int64_t id) const;  // Dyn when the node has none
  const Type& result_type() const { return type_of(root.id); }
};

// cel-go's debug form of an expression (parser_test.go's expected strings without adornments), for tests and logs.
std::string debug_string(const Expr& expr);

}  // namespace kapi::cel
