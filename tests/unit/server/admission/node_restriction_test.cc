// NodeRestriction admission as kube's plugin/pkg/admission/noderestriction/admission_test.go exercises it: what a
// kubelet (system:node:mynode in system:nodes) may write to pods, its Node, PVC status, service account tokens,
// node leases and CSINodes, with kube's messages; other users are not its business.
#include "tests/unit/server/admission/plugin_fixture.h"

#include "server/plugin/admission/node_restriction_rules.h"

namespace kapi::admission {
std::unique_ptr<Plugin> make_node_restriction(const PluginContext& context);

namespace node_restriction_test {
namespace {

namespace json = boost::json;

json::object parse(std::string_view text) { return json::parse(text).as_object(); }

class NodeRestrictionAdmission : public fixture::PluginFixture {
 protected:
  NodeRestrictionAdmission() {
    add("", "pods", "Pod", true);
    add("", "nodes", "Node", false);
    plugin_ = make_node_restriction(context());
    node_user_ = {
        .name = "system:node:mynode", .uid = "", .groups = {"system:nodes", "system:authenticated"}, .extra = {}};
  }

  std::string stored_uid(std::string_view resource, std::string namespace_, std::string name) {
    registry::Store* store = context().stores("", resource);
    registry::ReadObject read = io_.run(store->get(std::move(namespace_), std::move(name), ""));
    return std::string(json::parse(read.json).at("metadata").at("uid").as_string());
  }

  // The refusal of `attributes` from `user` (the kubelet unless told), if any.
  std::optional<apierrors::Status> run(Attributes attributes, const request::UserInfo* user = nullptr) {
    attributes.user = user ? user : &node_user_;
    return admit(*plugin_, attributes);
  }
  std::string refusal(Attributes attributes, const request::UserInfo* user = nullptr) {
    auto refused = run(std::move(attributes), user);
    if (!refused) return "";
    EXPECT_EQ(refused->code, 403) << refused->message;
    return refused->message;
  }

  // A mirror pod of mynode owned by its Node (the Node is stored so its uid can be checked).
  json::object mirror_pod(std::string_view extra_spec = "") {
    if (node_uid_.empty()) {
      put("", "nodes", "", R"({"metadata":{"name":"mynode"}})");
      node_uid_ = stored_uid("nodes", "", "mynode");
    }
    return parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"static","namespace":"ns",
        "annotations":{"kubernetes.io/config.mirror":"hash"},
        "ownerReferences":[{"apiVersion":"v1","kind":"Node","name":"mynode","uid":")" +
                 node_uid_ +
                 R"(","controller":true}]},
        "spec":{"nodeName":"mynode",)" +
                 std::string(extra_spec) + R"("containers":[{"name":"c","image":"x"}]}})");
  }

  std::unique_ptr<Plugin> plugin_;
  request::UserInfo node_user_;
  std::string node_uid_;
};

TEST_F(NodeRestrictionAdmission, OtherUsersAreNotItsBusiness) {
  json::object pod = parse(R"({"metadata":{"name":"p"},"spec":{"nodeName":"other"}})");
  request::UserInfo admin{.name = "admin", .uid = "", .groups = {"system:masters"}, .extra = {}};
  EXPECT_EQ(run(fixture::PluginFixture::pod_create(pod), &admin), std::nullopt);
  request::UserInfo impostor{.name = "system:node:mynode", .uid = "", .groups = {"system:authenticated"}, .extra = {}};
  EXPECT_EQ(run(fixture::PluginFixture::pod_create(pod), &impostor), std::nullopt) << "not in system:nodes";
}

TEST_F(NodeRestrictionAdmission, ANodeWhoseNameIsUnknownIsRefusedEverything) {
  request::UserInfo nameless{.name = "system:node:", .uid = "", .groups = {"system:nodes"}, .extra = {}};
  json::object lease = parse(R"({"metadata":{"name":"x"}})");
  EXPECT_EQ(refusal(request(Operation::Create, "coordination.k8s.io", "leases", "Lease", "kube-node-lease", &lease),
                    &nameless),
            "leases.coordination.k8s.io \"x\" is forbidden: could not determine node from user \"system:node:\"");
}

TEST_F(NodeRestrictionAdmission, ANodeCreatesOnlyMirrorPodsBoundToItself) {
  json::object pod = mirror_pod();
  EXPECT_EQ(run(pod_create(pod)), std::nullopt);

  json::object normal = mirror_pod();
  normal["metadata"].as_object().erase("annotations");
  EXPECT_EQ(refusal(pod_create(normal)),
            "pods \"static\" is forbidden: pod does not have \"kubernetes.io/config.mirror\" annotation, node "
            "\"mynode\" can only create mirror pods");

  json::object elsewhere = mirror_pod();
  elsewhere["spec"].as_object()["nodeName"] = "other";
  EXPECT_EQ(refusal(pod_create(elsewhere)),
            "pods \"static\" is forbidden: node \"mynode\" can only create pods with spec.nodeName set to itself");

  json::object unowned = mirror_pod();
  unowned["metadata"].as_object().erase("ownerReferences");
  EXPECT_EQ(run(pod_create(unowned)), std::nullopt) << "1.32 does not yet require the owner reference";
}

TEST_F(NodeRestrictionAdmission, AMirrorPodsOnlyOwnerIsItsNodeAsController) {
  auto with_owner = [&](std::function<void(json::object&)> change) {
    json::object pod = mirror_pod();
    change(pod["metadata"].as_object()["ownerReferences"].as_array()[0].as_object());
    return refusal(pod_create(pod));
  };
  const std::string prefix = "pods \"static\" is forbidden: node \"mynode\" ";
  EXPECT_EQ(with_owner([](json::object& owner) { owner["name"] = "other"; }),
            prefix + "can only create pods with an owner reference set to itself");
  EXPECT_EQ(with_owner([](json::object& owner) { owner["kind"] = "Pod"; }),
            prefix + "can only create pods with an owner reference set to itself");
  EXPECT_EQ(with_owner([](json::object& owner) { owner["apiVersion"] = "v2"; }),
            prefix + "can only create pods with an owner reference set to itself");
  EXPECT_EQ(with_owner([](json::object& owner) { owner.erase("controller"); }),
            prefix + "can only create pods with a controller owner reference set to itself");
  EXPECT_EQ(with_owner([](json::object& owner) { owner["blockOwnerDeletion"] = true; }),
            prefix + "must not set blockOwnerDeletion on an owner reference");
  EXPECT_EQ(with_owner([](json::object& owner) { owner["uid"] = "stale"; }),
            "pods \"static\" is forbidden: node mynode UID mismatch: expected stale got " + node_uid_);

  json::object twice = mirror_pod();
  auto& owners = twice["metadata"].as_object()["ownerReferences"].as_array();
  owners.push_back(owners[0]);
  EXPECT_EQ(refusal(pod_create(twice)), prefix + "can only create pods with a single owner reference set to itself");
}

TEST_F(NodeRestrictionAdmission, AMirrorPodOwnedByANodeThatIsNotRegisteredIsNotFound) {
  json::object pod = mirror_pod();
  request::UserInfo ghost{.name = "system:node:ghost", .uid = "", .groups = {"system:nodes"}, .extra = {}};
  pod["spec"].as_object()["nodeName"] = "ghost";
  pod["metadata"].as_object()["ownerReferences"].as_array()[0].as_object()["name"] = "ghost";
  Attributes attributes = pod_create(pod);
  attributes.user = &ghost;
  auto refused = admit(*plugin_, attributes);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->code, 404);
  EXPECT_EQ(refused->message, "nodes \"ghost\" not found");
}

TEST_F(NodeRestrictionAdmission, AMirrorPodReferencesNoOtherApiObject) {
  const std::string prefix = "pods \"static\" is forbidden: node \"mynode\" can not create pods that reference ";
  auto refused_with = [&](std::string_view spec) {
    json::object pod = mirror_pod(spec);
    return refusal(pod_create(pod));
  };
  EXPECT_EQ(refused_with(R"("serviceAccountName":"default",)"), prefix + "a service account");
  EXPECT_EQ(refused_with(R"("imagePullSecrets":[{"name":"pull"}],)"), prefix + "secrets");
  EXPECT_EQ(refused_with(R"("volumes":[{"name":"v","secret":{"secretName":"s"}}],)"), prefix + "secrets");
  EXPECT_EQ(refused_with(R"("volumes":[{"name":"v","csi":{"driver":"d","nodePublishSecretRef":{"name":"s"}}}],)"),
            prefix + "secrets");
  EXPECT_EQ(
      refused_with(
          R"("initContainers":[{"name":"i","image":"x","env":[{"name":"E","valueFrom":{"secretKeyRef":{"name":"s","key":"k"}}}]}],)"),
      prefix + "secrets");
  EXPECT_EQ(refused_with(R"("volumes":[{"name":"v","configMap":{"name":"c"}}],)"), prefix + "configmaps");
  EXPECT_EQ(
      refused_with(R"("ephemeralContainers":[{"name":"e","image":"x","envFrom":[{"configMapRef":{"name":"c"}}]}],)"),
      prefix + "configmaps");
  EXPECT_EQ(refused_with(R"("volumes":[{"name":"v","projected":{"sources":[{"configMap":{"name":"c"}}]}}],)"),
            prefix + "configmaps");
  EXPECT_EQ(
      refused_with(
          R"("volumes":[{"name":"v","projected":{"sources":[{"clusterTrustBundle":{"name":"b","path":"p"}}]}}],)"),
      prefix + "clustertrustbundles");
  EXPECT_EQ(refused_with(R"("volumes":[{"name":"v","persistentVolumeClaim":{"claimName":"c"}}],)"),
            prefix + "persistentvolumeclaims");
  EXPECT_EQ(refused_with(R"("resourceClaims":[{"name":"gpu","resourceClaimName":"c"}],)"), prefix + "resourceclaims");
  EXPECT_EQ(refused_with(R"("volumes":[{"name":"v","emptyDir":{}},{"name":"h","hostPath":{"path":"/x"}}],)"), "");
}

TEST_F(NodeRestrictionAdmission, ANodeDeletesOnlyPodsBoundToItself) {
  put("", "pods", "ns", R"({"metadata":{"name":"mine"},"spec":{"nodeName":"mynode"}})");
  put("", "pods", "ns", R"({"metadata":{"name":"theirs"},"spec":{"nodeName":"other"}})");
  Attributes mine = request(Operation::Delete, "", "pods", "Pod", "ns", nullptr);
  mine.name = "mine";
  EXPECT_EQ(run(mine), std::nullopt);
  Attributes theirs = mine;
  theirs.name = "theirs";
  EXPECT_EQ(refusal(theirs),
            "pods \"theirs\" is forbidden: node \"mynode\" can only delete pods with spec.nodeName set to itself");
  Attributes missing = mine;
  missing.name = "gone";
  auto refused = run(missing);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->code, 404);

  json::object pod = parse(R"({"metadata":{"name":"mine"},"spec":{"nodeName":"mynode"}})");
  Attributes update = request(Operation::Update, "", "pods", "Pod", "ns", &pod);
  update.old_object = &pod;
  EXPECT_EQ(refusal(update),
            "pods \"mine\" is forbidden: unexpected operation \"UPDATE\", node \"mynode\" can only "
            "create and delete mirror pods");
  Attributes exec = request(Operation::Create, "", "pods", "PodExecOptions", "ns", &pod, "exec");
  EXPECT_EQ(
      refusal(exec),
      "pods \"mine\" is forbidden: unexpected pod subresource \"exec\", only 'status' and 'eviction' are allowed");
}

TEST_F(NodeRestrictionAdmission, ANodeUpdatesTheStatusOfItsOwnPodsOnlyAndNotTheirLabelsOrClaimStatuses) {
  const json::object old_pod = parse(R"({"metadata":{"name":"p","labels":{"a":"b"}},"spec":{"nodeName":"mynode"},
      "status":{"resourceClaimStatuses":[{"name":"gpu","resourceClaimName":"p-gpu"}]}})");
  json::object new_pod = old_pod;
  new_pod["status"].as_object()["phase"] = "Running";
  auto status_update = [&](const json::object& old, json::object& updated) {
    Attributes attributes = request(Operation::Update, "", "pods", "Pod", "ns", &updated, "status");
    attributes.old_object = &old;
    return attributes;
  };
  EXPECT_EQ(run(status_update(old_pod, new_pod)), std::nullopt);

  json::object relabelled = new_pod;
  relabelled["metadata"].as_object()["labels"].as_object()["a"] = "c";
  EXPECT_EQ(refusal(status_update(old_pod, relabelled)),
            "pods \"p\" is forbidden: node \"mynode\" cannot update labels through pod status");

  json::object reclaimed = new_pod;
  reclaimed["status"].as_object()["resourceClaimStatuses"] = json::parse(R"([{"name":"gpu","resourceClaimName":"x"}])");
  EXPECT_EQ(refusal(status_update(old_pod, reclaimed)),
            "pods \"p\" is forbidden: node \"mynode\" cannot update resource claim statues");

  json::object others = old_pod;
  others["spec"].as_object()["nodeName"] = "other";
  json::object others_new = others;
  EXPECT_EQ(refusal(status_update(others, others_new)),
            "pods \"p\" is forbidden: node \"mynode\" can only update pod status for pods with spec.nodeName set to "
            "itself");
}

TEST_F(NodeRestrictionAdmission, ANodeEvictsOnlyItsOwnPods) {
  put("", "pods", "ns", R"({"metadata":{"name":"mine"},"spec":{"nodeName":"mynode"}})");
  put("", "pods", "ns", R"({"metadata":{"name":"theirs"},"spec":{"nodeName":"other"}})");
  json::object eviction = parse(R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"mine"}})");
  Attributes mine = request(Operation::Create, "", "pods", "Eviction", "ns", &eviction, "eviction");
  EXPECT_EQ(run(mine), std::nullopt);
  Attributes theirs = mine;
  theirs.name = "theirs";
  EXPECT_EQ(refusal(theirs),
            "pods \"theirs\" is forbidden: node mynode can only evict pods with spec.nodeName set to itself");
  json::object nameless = parse(R"({"kind":"Eviction","metadata":{}})");
  Attributes unnamed = request(Operation::Create, "", "pods", "Eviction", "ns", &nameless, "eviction");
  EXPECT_EQ(refusal(unnamed), "pods \"Unknown\" is forbidden: could not determine pod from request data");
}

class NodeRestrictionNodes : public NodeRestrictionAdmission {
 protected:
  std::string create(std::string_view node) {
    json::object object = parse(node);
    return refusal(request(Operation::Create, "", "nodes", "Node", "", &object));
  }
  std::string update(std::string_view old_node, std::string_view new_node) {
    const json::object old = parse(old_node);
    json::object updated = parse(new_node);
    Attributes attributes = request(Operation::Update, "", "nodes", "Node", "", &updated);
    attributes.old_object = &old;
    return refusal(attributes);
  }
};

TEST_F(NodeRestrictionNodes, ANodeCreatesAndUpdatesOnlyItself) {
  EXPECT_EQ(create(R"({"metadata":{"name":"mynode","labels":{"kubernetes.io/hostname":"mynode"}}})"), "");
  EXPECT_EQ(create(R"({"metadata":{"name":"other"}})"),
            "nodes \"other\" is forbidden: node \"mynode\" is not allowed to modify node \"other\"");
  EXPECT_EQ(update(R"({"metadata":{"name":"other"}})", R"({"metadata":{"name":"other"},"status":{"phase":"x"}})"),
            "nodes \"other\" is forbidden: node \"mynode\" is not allowed to modify node \"other\"");
  EXPECT_EQ(update(R"({"metadata":{"name":"mynode"}})", R"({"metadata":{"name":"mynode"},"status":{"phase":"x"}})"),
            "");
  Attributes deletion = request(Operation::Delete, "", "nodes", "Node", "", nullptr);
  deletion.name = "other";
  EXPECT_EQ(refusal(deletion), "nodes \"other\" is forbidden: node \"mynode\" is not allowed to modify node \"other\"");
}

TEST_F(NodeRestrictionNodes, ANodeSetsNoConfigSourceAndKeepsItsTaints) {
  EXPECT_EQ(create(R"({"metadata":{"name":"mynode"},"spec":{"configSource":{"configMap":{"name":"c"}}}})"),
            "nodes \"mynode\" is forbidden: node \"mynode\" is not allowed to create pods with a non-nil configSource");
  EXPECT_EQ(update(R"({"metadata":{"name":"mynode"}})",
                   R"({"metadata":{"name":"mynode"},"spec":{"configSource":{"configMap":{"name":"c"}}}})"),
            "nodes \"mynode\" is forbidden: node \"mynode\" is not allowed to update configSource to a new non-nil "
            "configSource");
  EXPECT_EQ(update(R"({"metadata":{"name":"mynode"},"spec":{"configSource":{"configMap":{"name":"c"}}}})",
                   R"({"metadata":{"name":"mynode"}})"),
            "")
      << "an old kubelet may drop the field";
  const char* tainted = R"({"metadata":{"name":"mynode"},"spec":{"taints":[{"key":"k","effect":"NoSchedule"}]}})";
  EXPECT_EQ(update(tainted, R"({"metadata":{"name":"mynode"},"spec":{}})"),
            "nodes \"mynode\" is forbidden: node \"mynode\" is not allowed to modify taints");
  EXPECT_EQ(update(R"({"metadata":{"name":"mynode"}})", tainted),
            "nodes \"mynode\" is forbidden: node \"mynode\" is not allowed to modify taints");
  EXPECT_EQ(update(R"({"metadata":{"name":"mynode"},"spec":{"taints":[]}})", R"({"metadata":{"name":"mynode"}})"), "")
      << "no taints and an empty list are alike";
}

TEST_F(NodeRestrictionNodes, ANodeKeepsItsOwnerReferences) {
  EXPECT_EQ(update(R"({"metadata":{"name":"mynode"}})",
                   R"({"metadata":{"name":"mynode","ownerReferences":[{"apiVersion":"v1","kind":"Node","name":"x",
                       "uid":"u"}]}})"),
            "nodes \"mynode\" is forbidden: node \"mynode\" is not allowed to modify ownerReferences");
}

TEST_F(NodeRestrictionNodes, ANodeSetsOnlyTheKubeletsLabels) {
  EXPECT_EQ(create(R"({"metadata":{"name":"mynode","labels":{"kubernetes.io/hostname":"h","kubernetes.io/os":"linux",
      "topology.kubernetes.io/zone":"z","node.kubernetes.io/instance-type":"t","kubelet.kubernetes.io/x":"1",
      "a.node.kubernetes.io/y":"1","example.com/free":"1"}}})"),
            "");
  EXPECT_EQ(create(R"({"metadata":{"name":"mynode","labels":{"node-restriction.kubernetes.io/a":"1",
      "node-role.kubernetes.io/master":"","x.k8s.io/y":"1","example.com/free":"1"}}})"),
            "nodes \"mynode\" is forbidden: node \"mynode\" is not allowed to set the following labels: "
            "node-restriction.kubernetes.io/a, node-role.kubernetes.io/master, x.k8s.io/y");
  EXPECT_EQ(update(R"({"metadata":{"name":"mynode","labels":{"node-role.kubernetes.io/worker":""}}})",
                   R"({"metadata":{"name":"mynode","labels":{"kubernetes.io/hostname":"h"}}})"),
            "nodes \"mynode\" is forbidden: is not allowed to modify labels: node-role.kubernetes.io/worker");
  EXPECT_EQ(update(R"({"metadata":{"name":"mynode","labels":{"node-role.kubernetes.io/worker":""}}})",
                   R"({"metadata":{"name":"mynode","labels":{"node-role.kubernetes.io/worker":"","a":"b"}}})"),
            "")
      << "labels it leaves alone are no concern";
}

TEST_F(NodeRestrictionAdmission, ANodeUpdatesOnlyCapacityAndConditionsOfPvcStatus) {
  const json::object old_pvc = parse(R"({"metadata":{"name":"c","resourceVersion":"1"},"spec":{"volumeName":"pv"},
      "status":{"phase":"Bound","capacity":{"storage":"1Gi"}}})");
  auto status_update = [&](json::object& updated) {
    Attributes attributes =
        request(Operation::Update, "", "persistentvolumeclaims", "PersistentVolumeClaim", "ns", &updated, "status");
    attributes.old_object = &old_pvc;
    return attributes;
  };
  json::object resized = parse(R"({"metadata":{"name":"c","resourceVersion":"2"},"spec":{"volumeName":"pv"},
      "status":{"phase":"Bound","capacity":{"storage":"2Gi"},"conditions":[{"type":"Resizing","status":"True"}],
      "allocatedResources":{"storage":"2Gi"}}})");
  EXPECT_EQ(run(status_update(resized)), std::nullopt);

  json::object relabelled = resized;
  relabelled["metadata"].as_object()["labels"] = json::object{{"a", "b"}};
  EXPECT_EQ(refusal(status_update(relabelled)),
            "persistentvolumeclaims \"c\" is forbidden: node \"mynode\" is not allowed to update fields other than "
            "status.quantity and status.conditions: metadata.labels: null != {\"a\":\"b\"}");

  json::object spec_change = resized;
  Attributes main_resource =
      request(Operation::Update, "", "persistentvolumeclaims", "PersistentVolumeClaim", "ns", &spec_change);
  main_resource.old_object = &old_pvc;
  EXPECT_EQ(refusal(main_resource), "persistentvolumeclaims \"c\" is forbidden: may only update PVC status");
}

TEST_F(NodeRestrictionAdmission, ANodeRequestsOnlyTokensBoundToItsOwnPods) {
  put("", "pods", "ns", R"({"metadata":{"name":"mine"},"spec":{"nodeName":"mynode"}})");
  put("", "pods", "ns", R"({"metadata":{"name":"theirs"},"spec":{"nodeName":"other"}})");
  const std::string mine_uid = stored_uid("pods", "ns", "mine");
  const std::string theirs_uid = stored_uid("pods", "ns", "theirs");
  auto token = [&](std::string bound) {
    json::object request_object =
        parse(R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"audiences":["a"])" +
              (bound.empty() ? std::string() : ",\"boundObjectRef\":" + bound) + "}}");
    Attributes attributes =
        request(Operation::Create, "", "serviceaccounts", "TokenRequest", "ns", &request_object, "token");
    attributes.name = "default";
    return refusal(attributes);
  };
  const std::string prefix = "serviceaccounts \"default\" is forbidden: ";
  EXPECT_EQ(token(R"({"apiVersion":"v1","kind":"Pod","name":"mine","uid":")" + mine_uid + "\"}"), "");
  EXPECT_EQ(token(""), prefix + "node requested token not bound to a pod");
  EXPECT_EQ(token(R"({"apiVersion":"v1","kind":"Secret","name":"mine","uid":"u"})"),
            prefix + "node requested token not bound to a pod");
  EXPECT_EQ(token(R"({"apiVersion":"v1","kind":"Pod","name":"mine"})"),
            prefix + "node requested token with a pod binding without a uid");
  EXPECT_EQ(token(R"({"apiVersion":"v1","kind":"Pod","name":"mine","uid":"stale"})"),
            prefix +
                "the UID in the bound object reference (stale) does not match the UID in record. The object might "
                "have been deleted and then recreated");
  EXPECT_EQ(token(R"({"apiVersion":"v1","kind":"Pod","name":"theirs","uid":")" + theirs_uid + "\"}"),
            prefix + "node requested token bound to a pod scheduled on a different node");
}

TEST_F(NodeRestrictionAdmission, ANodeTouchesOnlyItsOwnLeaseAndCsiNode) {
  json::object lease = parse(R"({"metadata":{"name":"mynode"}})");
  EXPECT_EQ(run(request(Operation::Create, "coordination.k8s.io", "leases", "Lease", "kube-node-lease", &lease)),
            std::nullopt);
  EXPECT_EQ(refusal(request(Operation::Create, "coordination.k8s.io", "leases", "Lease", "default", &lease)),
            "leases.coordination.k8s.io \"mynode\" is forbidden: can only access leases in the \"kube-node-lease\" "
            "system namespace");
  json::object other = parse(R"({"metadata":{"name":"other"}})");
  Attributes update = request(Operation::Update, "coordination.k8s.io", "leases", "Lease", "kube-node-lease", &other);
  update.old_object = &other;
  EXPECT_EQ(refusal(update),
            "leases.coordination.k8s.io \"other\" is forbidden: can only access node lease with the "
            "same name as the requesting node");

  json::object csi_node = parse(R"({"metadata":{"name":"mynode"}})");
  EXPECT_EQ(run(request(Operation::Create, "storage.k8s.io", "csinodes", "CSINode", "", &csi_node)), std::nullopt);
  Attributes removal = request(Operation::Delete, "storage.k8s.io", "csinodes", "CSINode", "", nullptr);
  removal.name = "other";
  EXPECT_EQ(refusal(removal),
            "csinodes.storage.k8s.io \"other\" is forbidden: can only access CSINode with the same "
            "name as the requesting node");
}

TEST(NodeRestrictionRules, SemanticEqualityTakesMissingNullAndEmptyAlike) {
  const json::value empty_list = json::array{};
  const json::value null;
  EXPECT_TRUE(node_restriction::semantically_equal(nullptr, &empty_list));
  EXPECT_TRUE(node_restriction::semantically_equal(&null, &empty_list));
  const json::value a = json::parse(R"({"x":[],"y":1})");
  const json::value b = json::parse(R"({"y":1})");
  EXPECT_TRUE(node_restriction::semantically_equal(&a, &b));
  const json::value c = json::parse(R"({"y":2})");
  EXPECT_FALSE(node_restriction::semantically_equal(&a, &c));
}

}  // namespace
}  // namespace node_restriction_test
}  // namespace kapi::admission
