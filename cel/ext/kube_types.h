#pragma once
// The value types kube's CEL libraries add (k8s.io/apiserver/pkg/cel: quantity.go, ip.go, cidr.go, url.go,
// format.go), as opaque CEL values with kube's type names. Equality is kube's: quantities by value
// (quantity("1k") == quantity("1000")), IPs and CIDRs by address and prefix, URLs by every part.
#include <memory>
#include <string>

#include "base/go_netip.h"
#include "base/go_url.h"
#include "base/quantity.h"
#include "cel/types.h"
#include "cel/value.h"

namespace kapi::cel::ext {

inline constexpr std::string_view kQuantityTypeName = "kubernetes.Quantity";
inline constexpr std::string_view kIPTypeName = "net.IP";
inline constexpr std::string_view kCIDRTypeName = "net.CIDR";
inline constexpr std::string_view kURLTypeName = "kubernetes.URL";
inline constexpr std::string_view kNamedFormatTypeName = "kubernetes.NamedFormat";

inline Type quantity_type() { return Type::opaque(std::string(kQuantityTypeName)); }
inline Type ip_type() { return Type::opaque(std::string(kIPTypeName)); }
inline Type cidr_type() { return Type::opaque(std::string(kCIDRTypeName)); }
inline Type url_type() { return Type::opaque(std::string(kURLTypeName)); }
inline Type named_format_type() { return Type::opaque(std::string(kNamedFormatTypeName)); }

class QuantityValue final : public Opaque {
 public:
  explicit QuantityValue(Quantity quantity) : quantity_(quantity) {}
  std::string_view type_name() const override { return kQuantityTypeName; }
  bool equals(const Opaque& other) const override;
  const Quantity& quantity() const { return quantity_; }

 private:
  Quantity quantity_;
};

class IPValue final : public Opaque {
 public:
  explicit IPValue(base::GoAddr addr) : addr_(std::move(addr)) {}
  std::string_view type_name() const override { return kIPTypeName; }
  bool equals(const Opaque& other) const override;
  const base::GoAddr& addr() const { return addr_; }

 private:
  base::GoAddr addr_;
};

class CIDRValue final : public Opaque {
 public:
  explicit CIDRValue(base::GoPrefix prefix) : prefix_(std::move(prefix)) {}
  std::string_view type_name() const override { return kCIDRTypeName; }
  bool equals(const Opaque& other) const override;
  const base::GoPrefix& prefix() const { return prefix_; }

 private:
  base::GoPrefix prefix_;
};

class URLValue final : public Opaque {
 public:
  explicit URLValue(base::GoUrl url) : url_(std::move(url)) {}
  std::string_view type_name() const override { return kURLTypeName; }
  bool equals(const Opaque& other) const override;
  const base::GoUrl& url() const { return url_; }

 private:
  base::GoUrl url_;
};

template <typename T, typename... Args>
Value make_opaque(Args&&... args) {
  return Value(std::shared_ptr<const Opaque>(std::make_shared<const T>(std::forward<Args>(args)...)));
}

}  // namespace kapi::cel::ext
