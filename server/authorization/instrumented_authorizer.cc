#include "server/authorization/instrumented_authorizer.h"

namespace kapi::authorization {

void InstrumentedAuthorizer::record(const Result& result) const {
  switch (result.decision) {
    case Decision::NoOpinion: return;
    case Decision::Allow: metrics_.decisions.inc({"allowed", name_, type_}); return;  // SubjectAccessReview's words
    case Decision::Deny: metrics_.decisions.inc({"denied", name_, type_}); return;
  }
}

Result InstrumentedAuthorizer::authorize(const Attributes& attributes) const {
  Result result = delegate_->authorize(attributes);
  record(result);
  return result;
}

asio::awaitable<Result> InstrumentedAuthorizer::authorize_async(const Attributes& attributes) const {
  auto deciding = delegate_->authorize_async(attributes);
  Result result = co_await std::move(deciding);
  record(result);
  co_return result;
}

std::shared_ptr<const Authorizer> instrumented(std::string type, std::string name,
                                               std::shared_ptr<const Authorizer> authorizer,
                                               metrics::AuthorizationFamilies* metrics) {
  if (!metrics) return authorizer;
  return std::make_shared<InstrumentedAuthorizer>(std::move(type), std::move(name), std::move(authorizer), *metrics);
}

}  // namespace kapi::authorization
