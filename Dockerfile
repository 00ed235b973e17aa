FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY gateway ./gateway
COPY hook ./hook
COPY orchestrator ./orchestrator
COPY rules ./rules
RUN pip install --no-cache-dir . && useradd --create-home acteon
USER acteon
EXPOSE 8080
# Inside the container the gateway must listen on all interfaces; publish the port to loopback only.
CMD ["acteon-gateway", "--host", "0.0.0.0", "--port", "8080", "--rules", "/app/rules"]
