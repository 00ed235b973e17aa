FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY acteon_core ./acteon_core
COPY gateway ./gateway
COPY hook ./hook
COPY orchestrator ./orchestrator
COPY rules ./rules
# The gateway runs as an unprivileged user; its state (admin key file, embedded store snapshot) lives in a
# directory that user owns — not in /app, which root owns.
# EXTRAS="[distributed]" adds the Temporal executor and CLI (the compose file's "distributed" profile).
ARG EXTRAS=""
RUN pip install --no-cache-dir ".${EXTRAS}" \
 && useradd --create-home --uid 10001 acteon \
 && install -d -o acteon -g acteon -m 0700 /var/lib/acteon-swarm
ENV ACTEON_STATE_DIR=/var/lib/acteon-swarm
VOLUME ["/var/lib/acteon-swarm"]
USER acteon
EXPOSE 8080
# Inside the container the gateway must listen on all interfaces; publish the port to loopback only.
CMD ["acteon-gateway", "--host", "0.0.0.0", "--port", "8080", "--rules", "/app/rules"]
