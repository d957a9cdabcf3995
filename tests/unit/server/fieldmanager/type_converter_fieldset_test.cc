// The converted types at work: the fields an applied configuration sets (typed's to_field_set), as kube records
// them in metadata.managedFields for `kubectl apply --server-side` of the same objects.
#include "server/fieldmanager/type_converter.h"
#include "server/structured_merge/typed.h"

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

#include <string_view>

namespace kapi::fieldmanager::type_converter_fieldset_test {
namespace {

namespace sm = structured_merge;

const schema::Catalog& catalog() {
  static const schema::Catalog kCatalog = schema::Catalog::builtin();
  return kCatalog;
}

sm::Set fields_of(const sm::Schema& schema, sm::TypeRef type, std::string_view object) {
  return sm::to_field_set(sm::as_typed(boost::json::parse(object), schema, type));
}

TEST(TypeConverterFieldSetTest, DeploymentAsKubeRecordsIt) {
  auto schema = schema_from_catalog(catalog());
  sm::TypeRef deployment = kind_type(*schema, catalog(), "apps", "v1", "Deployment");
  ASSERT_NE(deployment, nullptr);
  const sm::Set fields = fields_of(*schema, deployment, R"({
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "web", "labels": {"app": "web"}, "finalizers": ["example.com/keep"]},
    "spec": {
      "replicas": 2,
      "selector": {"matchLabels": {"app": "web"}},
      "template": {
        "metadata": {"labels": {"app": "web"}},
        "spec": {
          "containers": [{"name": "nginx", "image": "nginx", "ports": [{"containerPort": 80}],
                          "env": [{"name": "A", "value": "1"}],
                          "volumeMounts": [{"name": "data", "mountPath": "/data"}]}],
          "tolerations": [{"key": "k", "operator": "Exists"}],
          "nodeSelector": {"disk": "ssd"}
        }
      }
    }
  })");
  // The selector, tolerations and nodeSelector are atomic: leaves. The port without a protocol is keyed by its
  // default, TCP; the finalizer is a set item.
  const sm::Set expected = sm::Set::from_fields_v1(R"({
    "f:apiVersion": {}, "f:kind": {},
    "f:metadata": {"f:name": {}, "f:labels": {"f:app": {}}, "f:finalizers": {"v:\"example.com/keep\"": {}}},
    "f:spec": {
      "f:replicas": {},
      "f:selector": {},
      "f:template": {
        "f:metadata": {"f:labels": {"f:app": {}}},
        "f:spec": {
          "f:containers": {"k:{\"name\":\"nginx\"}": {
            ".": {}, "f:name": {}, "f:image": {},
            "f:ports": {"k:{\"containerPort\":80,\"protocol\":\"TCP\"}": {".": {}, "f:containerPort": {}}},
            "f:env": {"k:{\"name\":\"A\"}": {".": {}, "f:name": {}, "f:value": {}}},
            "f:volumeMounts": {"k:{\"mountPath\":\"/data\"}": {".": {}, "f:name": {}, "f:mountPath": {}}}
          }},
          "f:tolerations": {},
          "f:nodeSelector": {}
        }
      }
    }
  })");
  EXPECT_EQ(fields.to_fields_v1(), expected.to_fields_v1());
}

TEST(TypeConverterFieldSetTest, ServicePortsAndOwnerReferences) {
  auto schema = schema_from_catalog(catalog());
  sm::TypeRef service = kind_type(*schema, catalog(), "", "v1", "Service");
  const sm::Set fields = fields_of(*schema, service, R"({
    "metadata": {"ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "c", "uid": "u1"}]},
    "spec": {"ports": [{"port": 53, "protocol": "UDP"}, {"port": 53, "targetPort": "dns"}], "selector": {"a": "b"}}
  })");
  const sm::Set expected = sm::Set::from_fields_v1(R"({
    "f:metadata": {"f:ownerReferences": {"k:{\"uid\":\"u1\"}": {}}},
    "f:spec": {
      "f:ports": {"k:{\"port\":53,\"protocol\":\"UDP\"}": {".": {}, "f:port": {}, "f:protocol": {}},
                  "k:{\"port\":53,\"protocol\":\"TCP\"}": {".": {}, "f:port": {}, "f:targetPort": {}}},
      "f:selector": {}
    }
  })");
  EXPECT_EQ(fields.to_fields_v1(), expected.to_fields_v1());
}

TEST(TypeConverterFieldSetTest, CustomResourceMapListSetAndPreservedFields) {
  auto converted = schema_from_structural(boost::json::parse(R"({
    "type": "object",
    "properties": {
      "spec": {"type": "object", "properties": {
        "routes": {"type": "array", "x-kubernetes-list-type": "map",
                   "x-kubernetes-list-map-keys": ["host", "port"],
                   "items": {"type": "object", "properties": {
                     "host": {"type": "string"}, "port": {"type": "integer"}, "weight": {"type": "integer"}}}},
        "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
        "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
      }}
    }
  })").as_object(), "com.example.v1.Widget", catalog());
  const sm::Set fields = fields_of(*converted.schema, converted.root, R"({
    "apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "labels": {"a": "b"}},
    "spec": {"routes": [{"host": "a", "port": 80, "weight": 1}], "tags": ["x"],
             "extra": {"free": {"form": [1, 2]}}}
  })");
  // Preserved unknown fields are deduced: maps granular, lists atomic; a member that is no declared field is a path of
  // its own besides its children (".").
  const sm::Set expected = sm::Set::from_fields_v1(R"({
    "f:apiVersion": {}, "f:kind": {}, "f:metadata": {"f:name": {}, "f:labels": {"f:a": {}}},
    "f:spec": {
      "f:routes": {"k:{\"host\":\"a\",\"port\":80}": {".": {}, "f:host": {}, "f:port": {}, "f:weight": {}}},
      "f:tags": {"v:\"x\"": {}},
      "f:extra": {"f:free": {".": {}, "f:form": {}}}
    }
  })");
  EXPECT_EQ(fields.to_fields_v1(), expected.to_fields_v1());
}

}  // namespace
}  // namespace kapi::fieldmanager::type_converter_fieldset_test
