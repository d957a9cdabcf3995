// admissionregistration.k8s.io/v1 MutatingWebhookConfiguration: the webhooks that may change an object on
// admission (pkg/registry/admissionregistration/mutatingwebhookconfiguration); the strategy is shared with the
// validating kind in webhook_configurations.cc.
#include "server/apis/admissionregistration/admissionregistration.h"
#include "server/apis/admissionregistration/webhook_configurations.h"

namespace kapi::apis {

ResourceStorage mutatingwebhookconfigurations() {
  return admissionregistration::webhook_configurations(admissionregistration::WebhookKind::Mutating);
}

}  // namespace kapi::apis
