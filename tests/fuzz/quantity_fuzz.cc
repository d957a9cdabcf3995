// Fuzzes resource.Quantity's text form (k8s.io/apimachinery/pkg/api/resource, base/quantity.h) through both of
// kapi's readers: parse_resource_quantity, which the core strategies and admission plugins use, and
// parse_go_quantity, ParseQuantity exactly as CEL's quantity library needs it. Every quantity that parses is then
// printed (String()) and read again, and the integer, float and arithmetic views CEL exposes are taken.
//
// Refusals are values, not exceptions (std::nullopt, QuantityParseError), so nothing here catches. Findings, besides
// crashes, sanitizer reports (the arithmetic is __int128, where UBSan reports overflow) and timeouts:
//  - kube's canonical-form invariant (quantity_test.go's round trips): String() parses again, to the same value and
//    the same String(). Past 2^63-1 units only "it parses" is required (kapi saturates where kube's inf.Dec keeps
//    going), and a BinarySI value printed without a binary suffix ("62.5Ki" is "64000") reads back as DecimalSI,
//    whose String() differs ("64k"), in kube as here, so there the value alone must match;
//  - x - x not being zero (Quantity.Sub).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "base/quantity.h"
#include "tests/fuzz/finding.h"

namespace {

using kapi::fuzz::finding;

using kapi::Quantity;
using kapi::QuantityNanos;

// resource.maxAllowed: 2^63-1 units.
constexpr QuantityNanos kMaxAllowed = static_cast<QuantityNanos>(INT64_MAX) * kapi::kNanosPerUnit;

bool within_kube_range(const Quantity& q) { return q.nanos >= -kMaxAllowed && q.nanos <= kMaxAllowed; }

void check_reparse(const Quantity& q, const std::optional<Quantity>& reparsed, const std::string& printed) {
  if (!reparsed) finding("String() does not parse", printed);
  if (!within_kube_range(q)) return;
  if (reparsed->nanos != q.nanos) finding("String() parses to another value", printed);
  const bool binary_without_suffix = q.format == kapi::QuantityFormat::BinarySI && !printed.ends_with('i');
  if (!binary_without_suffix && reparsed->to_string() != printed)
    finding("String() parses to another String()", printed);
}

std::optional<Quantity> go_quantity(std::string_view text) {
  auto parsed = kapi::parse_go_quantity(text);
  if (auto* q = std::get_if<Quantity>(&parsed)) return *q;
  return std::nullopt;
}

// What CEL's quantity library reads off a quantity, and its arithmetic with itself.
void take_views(const Quantity& q, std::string_view text) {
  q.value();
  q.milli_value();
  q.as_int64();
  q.as_approximate_float64();
  q.sign();
  if (q.cmp(q) != 0) finding("a quantity compares unequal to itself", text);
  Quantity difference = q;
  difference.sub(q);
  if (difference.sign() != 0) finding("x - x is not zero", text);
  Quantity sum = q;
  sum.add(q);
  sum.to_string();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  if (const std::optional<Quantity> q = kapi::parse_resource_quantity(text)) {
    const std::string printed = q->to_string();
    check_reparse(*q, kapi::parse_resource_quantity(printed), printed);
    q->value();
    q->milli_value();
  }

  if (const std::optional<Quantity> q = go_quantity(text)) {
    const std::string printed = q->to_string();
    check_reparse(*q, go_quantity(printed), printed);
    take_views(*q, text);
  }
  return 0;
}
