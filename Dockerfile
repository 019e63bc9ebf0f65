# Assignment Explorer dashboard: opens on the default sample scenario, no cluster needed.
#   docker build -t assignment-explorer .
#   docker run --rm -p 127.0.0.1:8501:8501 assignment-explorer
# A team server (a login, clusters by name, TLS): docs/deployment.md.
# BASE is any image with Python 3.11+ (python3 with its venv module) and useradd; the default is
# the official slim image. scripts/build-image.sh builds on a Debian root file system instead,
# where that image cannot be pulled.
ARG BASE=python:3.11-slim

# Stage 1: the project and its dependencies in a virtual environment. Every dependency ships as a
# wheel, so no compiler is needed. Left behind: pip and setuptools, the packages' own test suites
# and C headers, and compiled bytecode (70 MB; a start compiles what it imports in about a second).
FROM ${BASE} AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY pyproject.toml README.md ./
COPY assignors ./assignors
COPY adapters ./adapters
COPY cluster ./cluster
COPY dashboard ./dashboard
COPY guarded ./guarded
COPY pipeline ./pipeline
COPY sample_data ./sample_data
RUN python3 -m venv /opt/venv \
    && /opt/venv/bin/pip install --quiet '.[login]' \
    && /opt/venv/bin/pip uninstall --quiet --yes pip setuptools \
    && find /opt/venv/lib -depth -type d \( -name tests -o -name include -o -name __pycache__ \) \
        -exec rm -rf {} + \
    && ln -s "$(/opt/venv/bin/python -I -c 'import pathlib, dashboard; print(pathlib.Path(dashboard.__file__).with_name("serve.py"))')" /opt/venv/serve.py

# Stage 2: the environment alone, run by a user without privileges.
FROM ${BASE}
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    STREAMLIT_BROWSER_GATHER_USAGE_STATS=false \
    STREAMLIT_SERVER_HEADLESS=true \
    STREAMLIT_SERVER_FILE_WATCHER_TYPE=none \
    STREAMLIT_SERVER_ADDRESS=0.0.0.0 \
    STREAMLIT_SERVER_PORT=8501 \
    AE_PIPELINE_OUTPUT=/home/explorer/pipeline-output \
    AE_ANNOUNCE_SETUP=1
# Every interface inside the container (else it could not be reached): publish it on the host's
# loopback for a proxy, and put a login in front (docs/deployment.md). At start the server says
# whether a login ([auth] in ~/.streamlit/secrets.toml) and an operator file
# (ASSIGNMENT_EXPLORER_CONFIG) are configured.
RUN useradd --create-home --uid 10001 --user-group explorer
COPY --from=build /opt/venv /opt/venv
# The project's Streamlit settings (minimal toolbar, 30 s session TTL, no browser message cache,
# the theme) as the user's own ~/.streamlit/config.toml, which Streamlit reads whatever the working
# directory; the working directory is the same folder, so `streamlit config show` there shows it.
COPY --chown=explorer:explorer .streamlit/config.toml /home/explorer/.streamlit/config.toml
USER explorer
WORKDIR /home/explorer
EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD python -c "import os, sys, urllib.request; url = 'http://127.0.0.1:%s/_stcore/health' % os.environ['STREAMLIT_SERVER_PORT']; sys.exit(0 if urllib.request.urlopen(url, timeout=4).status == 200 else 1)"
# serve.py serves dashboard/app.py with the server settings of a fast first page (see its docstring).
CMD ["streamlit", "run", "/opt/venv/serve.py"]
