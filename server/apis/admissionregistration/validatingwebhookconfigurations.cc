// admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration: the webhooks that accept or refuse an object
// on admission (pkg/registry/admissionregistration/validatingwebhookconfiguration); the strategy is shared with
// the mutating kind in webhook_configurations.cc.
#include "server/apis/admissionregistration/admissionregistration.h"
#include "server/apis/admissionregistration/webhook_configurations.h"

namespace kapi::apis {

ResourceStorage validatingwebhookconfigurations() {
  return admissionregistration::webhook_configurations(admissionregistration::WebhookKind::Validating);
}

}  // namespace kapi::apis
