// DefaultIngressClass (plugin/pkg/admission/network/defaultingressclass): Ingresses without a class get the
// default IngressClass, the newest when several are marked (1.28 on); a class named in the spec or the
// kubernetes.io/ingress.class annotation is kept.
#include "tests/unit/server/admission/resource_plugin_fixture.h"

namespace kapi::admission {
std::unique_ptr<Plugin> make_default_ingress_class(const PluginContext& context);

namespace default_ingress_class_test {
namespace {

using testing::json::object;

class DefaultIngressClassTest : public testing::PluginFixture {
 protected:
  DefaultIngressClassTest() : classes_(serve("networking.k8s.io", "ingressclasses", "IngressClass", false)) {}

  void ingress_class(std::string name, std::string created, bool is_default) {
    put_as_is(classes_, "", object{{"metadata", object{{"name", name}, {"creationTimestamp", created},
                                                 {"annotations", object{{"ingressclass.kubernetes.io/is-default-class",
                                                                         is_default ? "true" : "false"}}}}},
                             {"spec", object{{"controller", "example.com/ingress"}}}});
  }
  std::string admitted_class(object ingress) {
    auto plugin = make_default_ingress_class(context());
    Attributes request = attributes(Operation::Create, "networking.k8s.io", "ingresses", "Ingress", "ns", &ingress);
    admit(*plugin, request);
    const auto* name = ingress["spec"].as_object().if_contains("ingressClassName");
    return name ? std::string(name->as_string()) : "<unset>";
  }
  static object ingress(object spec = {}, object annotations = {}) {
    return object{{"metadata", object{{"name", "i"}, {"namespace", "ns"}, {"annotations", std::move(annotations)}}},
                  {"spec", std::move(spec)}};
  }

  registry::Store& classes_;
};

TEST_F(DefaultIngressClassTest, AnIngressWithoutAClassGetsTheDefault) {
  ingress_class("nginx", "2026-01-01T00:00:00Z", true);
  ingress_class("other", "2026-01-01T00:00:00Z", false);
  EXPECT_EQ(admitted_class(ingress()), "nginx");
}

TEST_F(DefaultIngressClassTest, SeveralDefaultsChooseTheNewest) {
  ingress_class("b-newest", "2026-03-01T00:00:00Z", true);
  ingress_class("a-older", "2026-01-01T00:00:00Z", true);
  EXPECT_EQ(admitted_class(ingress()), "b-newest");
}

TEST_F(DefaultIngressClassTest, AClassAskedForIsKeptAndNoDefaultSetsNothing) {
  ingress_class("nginx", "2026-01-01T00:00:00Z", true);
  EXPECT_EQ(admitted_class(ingress(object{{"ingressClassName", "mine"}})), "mine");
  EXPECT_EQ(admitted_class(ingress({}, object{{"kubernetes.io/ingress.class", "legacy"}})), "<unset>");
}

TEST_F(DefaultIngressClassTest, WithoutADefaultNothingIsSet) {
  ingress_class("other", "2026-01-01T00:00:00Z", false);
  EXPECT_EQ(admitted_class(ingress()), "<unset>");
}

}  // namespace
}  // namespace default_ingress_class_test
}  // namespace kapi::admission
