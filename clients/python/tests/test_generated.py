"""The generated code covers the whole document: a method for every operation, a type for every schema."""
from __future__ import annotations

import inspect
import json
import os
import typing
import unittest

from _support import OPENAPI

import coldchain_client
from coldchain_client import OPERATIONS, RESOURCES, ColdchainClient, _generated

METHODS = ("get", "post", "put", "patch", "delete")


@unittest.skipUnless(os.path.exists(OPENAPI), "clients/openapi.json is not beside the package")
class DocumentCoverageTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        with open(OPENAPI, encoding="utf-8") as handle:
            cls.document = json.load(handle)
        cls.operations = {
            op["operationId"]: (method.upper(), path)
            for path, item in cls.document["paths"].items()
            for method, op in item.items()
            if method in METHODS
        }

    def test_every_operation_of_the_document_is_in_the_table(self) -> None:
        self.assertEqual(set(OPERATIONS), set(self.operations))
        for op_id, (method, path) in self.operations.items():
            op = OPERATIONS[op_id]
            self.assertEqual(op.method, method, op_id)
            self.assertEqual(_generated.BASE_PATH + op.path, path, op_id)

    def test_every_operation_has_a_client_method(self) -> None:
        client = ColdchainClient("https://api.example.com", "id", "secret")
        for op_id, op in OPERATIONS.items():
            resource = getattr(client, op.resource)
            method = getattr(resource, op.name, None)
            self.assertTrue(callable(method), f"{op_id}: client.{op.resource}.{op.name} is missing")
            self.assertIn(f"``{op_id}``", inspect.getdoc(method) or "", op_id)
            hints = typing.get_type_hints(method)
            parameters = inspect.signature(method).parameters
            for name in op.path_params:
                self.assertIn(name, parameters, f"{op_id}: path parameter {name}")
            if op.account_header:
                self.assertIn("account_id", parameters, op_id)
            if op.idempotency_key:
                self.assertIn("idempotency_key", parameters, op_id)
            self.assertIn("timeout", parameters, op_id)
            self.assertIn("return", hints, op_id)
            if op.response == "page":
                twin = "iter_all" if op.name == "list" else op.name.replace("list_", "iter_", 1)
                self.assertTrue(callable(getattr(resource, twin, None)), f"{op_id}: auto-paging {twin} is missing")

    def test_the_resource_groups_of_the_issue_exist(self) -> None:
        for group in ("accounts", "locations", "carriers", "receivers", "alert_presets", "shipment_templates", "devices", "telemetry",
                      "shipments", "alarms", "reports", "users", "roles", "invitations"):
            self.assertIn(group, RESOURCES)

    def test_every_schema_is_a_typed_dict(self) -> None:
        for schema_name in self.document["components"]["schemas"]:
            # the same names as the Node and .NET clients: without the server's Dto suffix, exported
            name = schema_name[:-3] if schema_name.endswith("Dto") else schema_name
            self.assertIn(name, coldchain_client.__all__)
            # (FieldError is exported as the errors' runtime class, a dict with the same keys)
            cls = getattr(coldchain_client._generated, name, None)
            self.assertIsNotNone(cls, name)
            with self.assertWarns(DeprecationWarning):
                self.assertIs(getattr(coldchain_client, schema_name), cls)  # the 1.0.0 name still works
            typing.get_type_hints(cls)  # every annotation resolves
            required = set(self.document["components"]["schemas"][schema_name].get("required", []))
            self.assertEqual(set(cls.__required_keys__), required, name)  # type: ignore[attr-defined]


if __name__ == "__main__":
    unittest.main()
