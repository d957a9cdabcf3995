#pragma once
// What kube-apiserver sets on a pod beyond the static +default markers (pkg/apis/core/v1/defaults.go:
// SetDefaults_Pod, SetDefaults_PodSpec, SetDefaults_Container, SetDefaults_Volume) and the status a new pod
// starts with (podStrategy.PrepareForCreate: phase Pending, the QoS class, the SchedulingGated condition).
#include <boost/json/object.hpp>

#include <string>
#include <string_view>

namespace kapi::apis::core {

// Defaults of a whole Pod object (spec included); applied on create and on update, as decoding applies them.
void apply_pod_defaults(boost::json::object& pod);
// Defaults of a PodSpec wherever one appears (a pod, a pod template).
void apply_pod_spec_defaults(boost::json::object& spec);

// SetDefaults_Container: Always for an image without tag and digest or tagged "latest", else IfNotPresent.
std::string default_image_pull_policy(std::string_view image);

// qos.ComputePodQOS: "Guaranteed", "Burstable" or "BestEffort" from the containers' cpu and memory requests and
// limits (after requests were defaulted from limits).
std::string pod_qos_class(const boost::json::object& pod);

// The status podStrategy.PrepareForCreate gives a new pod.
boost::json::object initial_pod_status(const boost::json::object& pod);

}  // namespace kapi::apis::core
