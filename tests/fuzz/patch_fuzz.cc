// Fuzzes the two patch types kapi applies without a schema, as kube-apiserver's patch handler applies them
// (k8s.io/apiserver/pkg/endpoints/handlers/patch.go over gopkg.in/evanphx/json-patch.v4): a JSON patch
// (server/patch/json_patch.h, RFC 6902 with evanphx's quirks, the operation and copy-size bounds) and a JSON merge
// patch (server/patch/merge_patch.h, RFC 7386 as evanphx's MergePatch does it), both onto one document.
//
// The input is the document, a NUL byte, then the patch body; without a NUL it is all patch, applied to a fixed
// Deployment. A document that Go's decoder would refuse is no stored object and is skipped. The bounds are lowered
// so that small inputs reach them.
//
// Both report a bad patch or a failed operation as PatchError, with the statuses their headers list: 400, 413 or
// 422 for a JSON patch; 400 for a merge patch, and the 500 of an unconverted Go error for a null document. Any other
// exception or status, a crash, a sanitizer report or a timeout is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include "server/patch/go_json.h"
#include "server/patch/json_patch.h"
#include "server/patch/merge_patch.h"
#include "server/patch/patch_error.h"
#include "tests/fuzz/finding.h"

namespace {

using kapi::fuzz::finding;

constexpr kapi::patch::JsonPatchLimits kLimits{.max_operations = 32, .max_copy_bytes = 4096};

constexpr std::string_view kDeployment = R"({"apiVersion":"apps/v1","kind":"Deployment",
  "metadata":{"name":"web","namespace":"default","labels":{"app":"web","tier":"frontend"},
              "annotations":{"deployment.kubernetes.io/revision":"1"}},
  "spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
          "template":{"metadata":{"labels":{"app":"web"}},
                      "spec":{"containers":[{"name":"app","image":"nginx:1","ports":[{"containerPort":80}]},
                                            {"name":"sidecar","image":"envoy:1","args":["-v",null,2.5]}]}}}})";

void expect_status(const kapi::patch::PatchError& error, std::initializer_list<int> documented) {
  for (int code : documented)
    if (error.status().code == code) return;
  finding("PatchError with an undocumented status " + std::to_string(error.status().code) + ": " + error.detail());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  const std::string_view document_json = nul == std::string_view::npos ? kDeployment : input.substr(0, nul);
  const std::string_view patch = nul == std::string_view::npos ? input : input.substr(nul + 1);

  std::string error;
  const std::optional<boost::json::value> document = kapi::patch::detail::parse_json(document_json, error);
  if (!document) return 0;

  try {
    boost::json::serialize(kapi::patch::apply_json_patch(*document, patch, kLimits));
  } catch (const kapi::patch::PatchError& e) {
    expect_status(e, {400, 413, 422});
  }
  try {
    boost::json::serialize(kapi::patch::apply_merge_patch(*document, patch));
  } catch (const kapi::patch::PatchError& e) {
    if (document->is_null()) {
      expect_status(e, {400, 500});
    } else {
      expect_status(e, {400});
    }
  }
  return 0;
}
