#pragma once
// What the two flowcontrol.apiserver.k8s.io/v1 kinds share with each other and with the config producer: kube's
// v1 defaults (pkg/apis/flowcontrol/v1/defaults.go), ValidateFlowSchema and ValidatePriorityLevelConfiguration
// (pkg/apis/flowcontrol/validation) word for word, and the spec comparisons kube makes with
// apiequality.Semantic.DeepEqual (the mandatory objects' fixed specs, the ensurer's SpecEqualish).
#include "server/validation/field_error.h"

#include <boost/json/object.hpp>

#include <string>

namespace kapi::apis::apf {

// SetObjectDefaults_FlowSchema: spec.matchingPrecedence 1000 when absent or 0.
void apply_flow_schema_defaults(boost::json::object& flow_schema);
// SetObjectDefaults_PriorityLevelConfiguration: a limited level's nominalConcurrencyShares 30 and lendablePercent 0
// when absent, its queuing's queues 64, handSize 8 and queueLengthLimit 50 when absent or 0; an exempt level's
// nominalConcurrencyShares and lendablePercent 0 when absent.
void apply_priority_level_defaults(boost::json::object& priority_level);

// ValidateFlowSchema / ValidateFlowSchemaUpdate beyond ObjectMeta (the Store checks that): the spec, the fixed
// spec of the mandatory `exempt` and `catch-all`, and the status conditions.
validation::ErrorList validate_flow_schema(const boost::json::object& flow_schema);
// ValidatePriorityLevelConfiguration likewise: the forbidden v1beta3 round-trip annotation, the spec (with the
// shuffle-sharding entropy check of queues and handSize), the mandatory objects (of `exempt` only spec.exempt may
// change) and the status conditions.
validation::ErrorList validate_priority_level(const boost::json::object& priority_level);

// The ensurer's SpecEqualish: whether `actual`'s spec is `expected`'s (defaulted), nil and empty lists alike, as
// apiequality.Semantic.DeepEqual compares them. For the `exempt` priority level, spec.exempt's values are the
// operator's to choose and do not count.
bool flow_schema_spec_equalish(const boost::json::object& expected, const boost::json::object& actual);
bool priority_level_spec_equalish(const boost::json::object& expected, const boost::json::object& actual);

// Go's %#v of the internal spec types, as field.Invalid prints a spec. Where Go prints the address of a non-nil
// pointer, these print what it points to (`&flowcontrol.GroupSubject{Name:"x"}`, `(*int32)(0)`).
std::string go_flow_schema_spec(const boost::json::object& flow_schema);
std::string go_priority_level_spec(const boost::json::object& priority_level);

}  // namespace kapi::apis::apf
