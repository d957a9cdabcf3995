#pragma once
// What persistent volumes and their claims share (pkg/apis/core/validation, pkg/apis/core/helper and the
// printers): access modes, class names, the volumeAttributesClassName kube 1.32 drops while its feature gate is off.
#include "server/validation/field_error.h"

#include <boost/json/object.hpp>

#include <string>

namespace kapi::apis::core {

// The access modes' checks: required (with `required_detail`), supported, ReadWriteOncePod alone.
void validate_access_modes(const boost::json::object& spec, const validation::Path& path,
                           std::string required_detail, validation::ErrorList& errors);
// ValidateClassName at spec.storageClassName / spec.volumeAttributesClassName when set.
void validate_class_names(const boost::json::object& spec, const validation::Path& path, validation::ErrorList& errors);
// helper.GetAccessModesAsString: "RWO,ROX,RWX,RWOP" in that order, each once.
std::string access_modes_string(const boost::json::object* holder);
// helper.GetPersistentVolumeClass / GetPersistentVolumeClaimClass: the beta annotation, else spec.storageClassName.
std::string storage_class_of(const boost::json::object& object);
// DropDisabledSpecFields with VolumeAttributesClass off (kube 1.32's default): a new volumeAttributesClassName is
// dropped; one the stored object has is kept.
void drop_volume_attributes_class(boost::json::object& object, const boost::json::object* old);

}  // namespace kapi::apis::core
