// --controllers as kube-controller-manager reads it: `*`, `name`, `-name`, aliases, and its error wording.
#include "server/controllers/manager.h"
#include "server/options.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace kapi::controllers::manager_test {
namespace {

using Names = std::vector<std::string>;

bool has(const Names& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

TEST(ControllerSelection, StarEnablesEveryControllerOnByDefault) {
  const Names enabled = enabled_controllers({"*"});
  for (const char* name :
       {"namespace-controller", "serviceaccount-controller", "garbage-collector-controller", "resourcequota-controller",
        "clusterrole-aggregation-controller", "root-ca-certificate-publisher-controller"})
    EXPECT_TRUE(has(enabled, name)) << name;
}

TEST(ControllerSelection, MinusDisablesOneAndAliasesNameTheirController) {
  const Names enabled = enabled_controllers({"*", "-serviceaccount"});
  EXPECT_FALSE(has(enabled, "serviceaccount-controller"));
  EXPECT_TRUE(has(enabled, "namespace-controller"));
  EXPECT_EQ(enabled_controllers({"*", "-serviceaccount-controller"}), enabled);
  EXPECT_EQ(enabled_controllers({"root-ca-cert-publisher"}), Names{"root-ca-certificate-publisher-controller"});
}

TEST(ControllerSelection, WithoutStarOnlyNamedControllersRunAndTheFirstEntryDecides) {
  EXPECT_EQ(enabled_controllers({"-serviceaccount"}), Names{});
  EXPECT_EQ(enabled_controllers({}), Names{});
  EXPECT_EQ(enabled_controllers({"serviceaccount", "-serviceaccount"}), Names{"serviceaccount-controller"});
  EXPECT_FALSE(has(enabled_controllers({"-namespace", "*", "namespace"}), "namespace-controller"));
}

TEST(ControllerSelection, UnknownNamesAreRefusedInKubesWords) {
  EXPECT_EQ(validate_controller_selection({"*", "-garbagecollector", "root-ca-cert-publisher"}), Names{});
  EXPECT_EQ(
      validate_controller_selection({"*", "bogus", "-nope"}),
      (Names{"\"bogus\" is not in the list of known controllers", "\"nope\" is not in the list of known controllers"}));
}

TEST(ControllerSelection, FlagDefaultsFollowTheStoreAndBadNamesFailParsing) {
  const char* embedded[] = {"kapi-apiserver"};
  EXPECT_EQ(server::controller_selection(server::parse_options(1, embedded)), Names{"*"});
  const char* etcd[] = {"kapi-apiserver", "--etcd-servers=http://127.0.0.1:2379"};
  EXPECT_EQ(server::controller_selection(server::parse_options(2, etcd)), Names{});
  const char* chosen[] = {"kapi-apiserver", "--etcd-servers=http://127.0.0.1:2379", "--controllers=*,-namespace"};
  EXPECT_EQ(server::controller_selection(server::parse_options(3, chosen)), (Names{"*", "-namespace"}));
  const char* bogus[] = {"kapi-apiserver", "--controllers=*,bogus"};
  try {
    server::parse_options(2, bogus);
    FAIL() << "an unknown controller was accepted";
  } catch (const server::OptionsError& error) {
    EXPECT_STREQ(error.what(), "\"bogus\" is not in the list of known controllers");
  }
  const char* durations[] = {"kapi-apiserver", "--leader-elect-lease-duration=5s", "--leader-elect-renew-deadline=5s"};
  EXPECT_THROW(server::parse_options(3, durations), server::OptionsError);
}

}  // namespace
}  // namespace kapi::controllers::manager_test
