# Assignment Explorer dashboard: opens on the default sample scenario, no cluster needed.
#   docker build -t assignment-explorer .
#   docker run --rm -p 8501:8501 assignment-explorer
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    STREAMLIT_BROWSER_GATHER_USAGE_STATS=false \
    STREAMLIT_SERVER_HEADLESS=true

RUN useradd --create-home --uid 10001 explorer
WORKDIR /app

COPY pyproject.toml README.md ./
COPY assignors ./assignors
COPY cluster ./cluster
COPY dashboard ./dashboard
COPY pipeline ./pipeline
COPY sample_data ./sample_data
RUN pip install . && chown -R explorer:explorer /app

USER explorer
EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD python -c "import urllib.request, sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4).status == 200 else 1)"

CMD ["streamlit", "run", "dashboard/app.py", "--server.port=8501", "--server.address=0.0.0.0"]
