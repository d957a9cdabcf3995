#include "server/selectors/label_selector.h"

#include "base/go_quote.h"
#include "base/name_validation.h"

#include <algorithm>
#include <charconv>
#include <cstdint>

namespace kapi::selectors {
namespace {

using Operator = LabelRequirement::Operator;

// selector.go's binaryOperators, in its order, as parseOperator lists them.
constexpr std::string_view kBinaryOperators = "in, notin, =, ==, !=, gt, lt";

// strconv.ParseInt(text, 10, 64): an optional sign, then decimal digits only, within int64.
std::optional<std::int64_t> parse_int64(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  const std::size_t digits_start = (!text.empty() && text.front() == '-') ? 1 : 0;
  if (text.size() <= digits_start || text[digits_start] < '0' || text[digits_start] > '9') return std::nullopt;
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string joined;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) joined += separator;
    joined += parts[i];
  }
  return joined;
}

// field.Invalid(path, value, detail).Error()
std::string invalid_value(std::string_view path, std::string_view value, std::string_view detail) {
  std::string message(path);
  message += ": Invalid value: ";
  message += base::go_quote(value);
  message += ": ";
  message += detail;
  return message;
}

// field.ErrorList.ToAggregate().Error(): duplicates dropped, several errors bracketed.
std::string aggregate(const std::vector<std::string>& errors) {
  std::vector<std::string> unique;
  for (const auto& error : errors) {
    if (std::find(unique.begin(), unique.end(), error) == unique.end()) unique.push_back(error);
  }
  if (unique.size() == 1) return unique.front();
  return "[" + join(unique, ", ") + "]";
}

// The lexer's tokens; `in` and `notin` are keywords only where an operator may stand.
enum class Token { EndOfString, ClosedPar, Comma, DoesNotExist, DoubleEquals, Equals, GreaterThan, Identifier, In,
                   LessThan, NotEquals, NotIn, OpenPar };

struct ScannedItem {
  Token token;
  std::string_view literal;
};

bool is_whitespace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
bool is_special_symbol(char c) {
  return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' || c == '<';
}

Token symbol_token(std::string_view symbol) {
  if (symbol == "!=") return Token::NotEquals;
  if (symbol == "==") return Token::DoubleEquals;
  switch (symbol.front()) {
    case '=': return Token::Equals;
    case '!': return Token::DoesNotExist;
    case '(': return Token::OpenPar;
    case ')': return Token::ClosedPar;
    case ',': return Token::Comma;
    case '>': return Token::GreaterThan;
    default: return Token::LessThan;
  }
}

// Go's lexer reads a NUL byte as it reads the end of the input: at the start of a token it ends the scan, and it
// ends (and is swallowed by) an identifier or operator in progress.
std::vector<ScannedItem> scan(std::string_view text) {
  std::vector<ScannedItem> items;
  std::size_t pos = 0;
  const auto swallow_nul = [&] {
    if (pos < text.size() && text[pos] == '\0') ++pos;
  };
  while (true) {
    while (pos < text.size() && is_whitespace(text[pos])) ++pos;
    if (pos >= text.size() || text[pos] == '\0') {
      items.push_back({Token::EndOfString, {}});
      return items;
    }
    const std::size_t start = pos;
    if (is_special_symbol(text[pos])) {
      const std::string_view pair = text.substr(pos, 2);
      pos += (pair == "!=" || pair == "==") ? 2 : 1;
      const std::string_view symbol = text.substr(start, pos - start);
      swallow_nul();
      items.push_back({symbol_token(symbol), symbol});
    } else {
      while (pos < text.size() && !is_special_symbol(text[pos]) && !is_whitespace(text[pos]) && text[pos] != '\0') {
        ++pos;
      }
      const std::string_view word = text.substr(start, pos - start);
      swallow_nul();
      const Token token = word == "in" ? Token::In : word == "notin" ? Token::NotIn : Token::Identifier;
      items.push_back({token, word});
    }
  }
}

std::string found(std::string_view literal, std::string_view expected) {
  std::string message = "found '";
  message += literal;
  message += "', expected: ";
  message += expected;
  return message;
}

// A recursive-descent parser over the scanned items, in the shape of selector.go's, so that every input fails where
// and as kube's fails.
class Parser {
 public:
  explicit Parser(std::string_view text) : items_(scan(text)) {}

  std::vector<LabelRequirement> parse() {
    std::vector<LabelRequirement> requirements;
    while (true) {
      const ScannedItem next = lookahead(Context::Values);
      switch (next.token) {
        case Token::Identifier:
        case Token::DoesNotExist: {
          try {
            requirements.push_back(parse_requirement());
          } catch (const SelectorParseError& error) {
            throw SelectorParseError(std::string("unable to parse requirement: ") + error.what());
          }
          const ScannedItem after = consume(Context::Values);
          if (after.token == Token::EndOfString) return requirements;
          if (after.token != Token::Comma) throw SelectorParseError(found(after.literal, "',' or 'end of string'"));
          const ScannedItem following = lookahead(Context::Values);
          if (following.token != Token::Identifier && following.token != Token::DoesNotExist) {
            throw SelectorParseError(found(following.literal, "identifier after ','"));
          }
          break;
        }
        case Token::EndOfString:
          return requirements;
        default:
          throw SelectorParseError(found(next.literal, "!, identifier, or 'end of string'"));
      }
    }
  }

 private:
  // In a value position `in` and `notin` are plain identifiers: `x in (in)`, `notin=in`.
  enum class Context { KeyAndOperator, Values };

  ScannedItem lookahead(Context context) const { return as_seen(items_[position_], context); }
  ScannedItem consume(Context context) { return as_seen(items_[position_++], context); }
  static ScannedItem as_seen(ScannedItem item, Context context) {
    if (context == Context::Values && (item.token == Token::In || item.token == Token::NotIn)) {
      item.token = Token::Identifier;
    }
    return item;
  }

  LabelRequirement parse_requirement() {
    LabelRequirement requirement;
    ScannedItem item = consume(Context::Values);
    bool negated = false;
    if (item.token == Token::DoesNotExist) {
      negated = true;
      item = consume(Context::Values);
    }
    if (item.token != Token::Identifier) throw SelectorParseError(found(item.literal, "identifier"));
    if (auto errors = validation::is_qualified_name(item.literal); !errors.empty()) {
      throw SelectorParseError(invalid_value("<nil>", item.literal, join(errors, "; ")));
    }
    requirement.key = std::string(item.literal);
    const Token next = lookahead(Context::Values).token;
    // `!key` stays does-not-exist whatever follows; what follows is then the top level's to refuse (`!x=a`).
    if (negated || next == Token::EndOfString || next == Token::Comma) {
      requirement.op = negated ? Operator::DoesNotExist : Operator::Exists;
      return requirement;
    }
    requirement.op = parse_operator();
    if (requirement.op == Operator::In || requirement.op == Operator::NotIn) {
      requirement.values = parse_values();
    } else {
      requirement.values = parse_exact_value();
    }
    validate_values(requirement);
    return requirement;
  }

  Operator parse_operator() {
    const ScannedItem item = consume(Context::KeyAndOperator);
    switch (item.token) {
      case Token::In: return Operator::In;
      case Token::Equals: return Operator::Equals;
      case Token::DoubleEquals: return Operator::DoubleEquals;
      case Token::GreaterThan: return Operator::GreaterThan;
      case Token::LessThan: return Operator::LessThan;
      case Token::NotIn: return Operator::NotIn;
      case Token::NotEquals: return Operator::NotEquals;
      default: throw SelectorParseError(found(item.literal, kBinaryOperators));
    }
  }

  // `(a,b)`; an empty list or an empty element stands for the empty value: `()`, `(,a)`, `(a,)`, `(a,,b)`.
  std::vector<std::string> parse_values() {
    const ScannedItem open = consume(Context::Values);
    if (open.token != Token::OpenPar) {
      // Kube's wording, without the colon its other messages have.
      throw SelectorParseError("found '" + std::string(open.literal) + "' expected: '('");
    }
    const ScannedItem first = lookahead(Context::Values);
    switch (first.token) {
      case Token::Identifier:
      case Token::Comma: {
        std::vector<std::string> values = parse_identifiers_list();
        consume(Context::Values);  // the ')' the list stopped at
        return values;
      }
      case Token::ClosedPar:
        consume(Context::Values);
        return {""};
      default:
        throw SelectorParseError(found(first.literal, "',', ')' or identifier"));
    }
  }

  std::vector<std::string> parse_identifiers_list() {
    // kube's sets.String: sorted and unique once the list is read (sorting as each value came was quadratic,
    // half a second for a selector of 20,000 values).
    std::vector<std::string> values;
    const auto insert = [&](std::string_view value) { values.emplace_back(value); };
    const auto as_set = [&] {
      std::sort(values.begin(), values.end());
      values.erase(std::unique(values.begin(), values.end()), values.end());
      return std::move(values);
    };
    while (true) {
      const ScannedItem item = consume(Context::Values);
      if (item.token == Token::Identifier) {
        insert(item.literal);
        const ScannedItem next = lookahead(Context::Values);
        if (next.token == Token::ClosedPar) return as_set();
        if (next.token != Token::Comma) throw SelectorParseError(found(next.literal, "',' or ')'"));
      } else if (item.token == Token::Comma) {
        if (values.empty()) insert("");
        const Token next = lookahead(Context::Values).token;
        if (next == Token::ClosedPar) {
          insert("");
          return as_set();
        }
        if (next == Token::Comma) insert("");
      } else {
        throw SelectorParseError(found(item.literal, "',', or identifier"));
      }
    }
  }

  // The value after =, ==, !=, > or <; nothing (`x=`, `x=,y`) is the empty value.
  std::vector<std::string> parse_exact_value() {
    const Token next = lookahead(Context::Values).token;
    if (next == Token::EndOfString || next == Token::Comma) return {""};
    const ScannedItem item = consume(Context::Values);
    if (item.token != Token::Identifier) throw SelectorParseError(found(item.literal, "identifier"));
    return {std::string(item.literal)};
  }

  // labels.NewRequirement's checks on the values, reported together as its aggregate error is.
  static void validate_values(const LabelRequirement& requirement) {
    std::vector<std::string> errors;
    const auto path = [](std::size_t i) { return "values[" + std::to_string(i) + "]"; };
    if (requirement.op == Operator::GreaterThan || requirement.op == Operator::LessThan) {
      for (std::size_t i = 0; i < requirement.values.size(); ++i) {
        if (!parse_int64(requirement.values[i])) {
          errors.push_back(invalid_value(path(i), requirement.values[i],
                                         "for 'Gt', 'Lt' operators, the value must be an integer"));
        }
      }
    }
    for (std::size_t i = 0; i < requirement.values.size(); ++i) {
      if (auto value_errors = validation::is_valid_label_value(requirement.values[i]); !value_errors.empty()) {
        errors.push_back(invalid_value(path(i) + "[" + requirement.key + "]", requirement.values[i],
                                       join(value_errors, "; ")));
      }
    }
    if (!errors.empty()) throw SelectorParseError(aggregate(errors));
  }

  std::vector<ScannedItem> items_;
  std::size_t position_ = 0;
};

}  // namespace


bool LabelRequirement::matches(std::optional<std::string_view> value) const {
  const auto has_value = [this](std::string_view candidate) {
    return std::binary_search(values.begin(), values.end(), candidate);
  };
  switch (op) {
    case Operator::Equals:
    case Operator::DoubleEquals:
    case Operator::In:
      return value && has_value(*value);
    case Operator::NotEquals:
    case Operator::NotIn:
      return !value || !has_value(*value);
    case Operator::Exists:
      return value.has_value();
    case Operator::DoesNotExist:
      return !value;
    case Operator::GreaterThan:
    case Operator::LessThan: {
      if (!value || values.size() != 1) return false;
      const auto actual = parse_int64(*value);
      const auto bound = parse_int64(values.front());
      if (!actual || !bound) return false;
      return op == Operator::GreaterThan ? *actual > *bound : *actual < *bound;
    }
  }
  return false;
}

std::string LabelRequirement::to_string() const {
  std::string out;
  if (op == Operator::DoesNotExist) out += '!';
  out += key;
  switch (op) {
    case Operator::Equals: out += "="; break;
    case Operator::DoubleEquals: out += "=="; break;
    case Operator::NotEquals: out += "!="; break;
    case Operator::In: out += " in ("; break;
    case Operator::NotIn: out += " notin ("; break;
    case Operator::GreaterThan: out += ">"; break;
    case Operator::LessThan: out += "<"; break;
    case Operator::Exists:
    case Operator::DoesNotExist:
      return out;
  }
  if (values.size() == 1) {
    out += values.front();
  } else {
    std::vector<std::string> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    out += join(sorted, ",");
  }
  if (op == Operator::In || op == Operator::NotIn) out += ')';
  return out;
}

LabelSelector LabelSelector::parse(std::string_view text) {
  std::vector<LabelRequirement> requirements = Parser(text).parse();
  // Kube sorts by key alone; stable keeps same-key requirements in the order written.
  std::stable_sort(requirements.begin(), requirements.end(),
                   [](const LabelRequirement& a, const LabelRequirement& b) { return a.key < b.key; });
  return LabelSelector(std::move(requirements));
}

bool LabelSelector::matches(const LabelMap& labels) const {
  return matches([&labels](std::string_view key) -> std::optional<std::string_view> {
    const auto it = labels.find(key);
    if (it == labels.end()) return std::nullopt;
    return it->second;
  });
}

std::string LabelSelector::to_string() const {
  std::string out;
  for (std::size_t i = 0; i < requirements_.size(); ++i) {
    if (i > 0) out += ',';
    out += requirements_[i].to_string();
  }
  return out;
}

std::optional<std::string_view> LabelSelector::exact_value(std::string_view key) const {
  for (const auto& requirement : requirements_) {
    if (requirement.key != key) continue;
    const bool pins = requirement.op == Operator::Equals || requirement.op == Operator::DoubleEquals ||
                      requirement.op == Operator::In;
    if (pins && requirement.values.size() == 1) return requirement.values.front();
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace kapi::selectors
