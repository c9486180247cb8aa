#!/bin/sh
# Creates the stack's RabbitMQ users through the management API and gives each only what it needs
# (permissions.json): the api, the dispatcher, and the gateways — which may publish to the
# telemetry and AIS exchanges and nothing else, so a gateway can never put an event on the events
# exchange. Idempotent: run by the `rabbitmq-users` compose service before the apps start.
set -eu
api="http://rabbitmq:15672/api"
auth="${RABBITMQ_ADMIN_USER}:${RABBITMQ_ADMIN_PASSWORD}"
put() { curl -fsS -u "$auth" -H 'content-type: application/json' -X PUT "$api/$1" -d "$2" >/dev/null; }
# Reads one user's three patterns from permissions.json without jq (not in the curl image).
permissions() { tr -d '\n' < /setup/permissions.json | sed -E "s/.*\"$1\": *(\{[^}]*\}).*/\1/"; }

put "users/coldchain-api" "{\"password\":\"${API_AMQP_PASSWORD}\",\"tags\":\"\"}"
put "users/coldchain-dispatcher" "{\"password\":\"${DISPATCHER_AMQP_PASSWORD}\",\"tags\":\"\"}"
put "users/coldchain-gateway" "{\"password\":\"${GATEWAY_AMQP_PASSWORD}\",\"tags\":\"\"}"
for user in coldchain-api coldchain-dispatcher coldchain-gateway; do
  put "permissions/%2F/$user" "$(permissions "$user")"
done
echo "RabbitMQ users ready: coldchain-api, coldchain-dispatcher, coldchain-gateway"
