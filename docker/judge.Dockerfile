# The judge sandbox image: the inspection tools a judge needs to read SkillsBench-like artifacts
# (logs, csv/json, xlsx/docx/pptx, pdf text, images, sqlite), run as a non-root user.
#
# BASE_IMAGE is any Debian bookworm root filesystem: the official image where a registry is
# reachable, or the local debootstrap import that scripts/build-images makes when it is not.
ARG BASE_IMAGE=debian:bookworm-slim
FROM ${BASE_IMAGE}

ENV DEBIAN_FRONTEND=noninteractive \
    LANG=C.UTF-8 \
    LC_ALL=C.UTF-8

# Debian packages where Debian has them. python-pptx is not packaged for bookworm: its pinned
# pure-Python wheel (with XlsxWriter) is fetched on the host by scripts/build-images into
# wheels/ of the build context and unpacked here, so the build itself needs no PyPI access.
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      bash coreutils findutils grep sed gawk diffutils file jq ripgrep sqlite3 \
      procps psmisc less tree unzip xxd ca-certificates \
      poppler-utils \
      python3 python3-openpyxl python3-docx python3-pil python3-lxml \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin

COPY wheels/ /tmp/wheels/
RUN site="$(python3 -c 'import sysconfig; print(sysconfig.get_path("purelib"))')" \
 && mkdir -p "$site" \
 && for wheel in /tmp/wheels/*.whl; do unzip -q -o "$wheel" -d "$site"; done \
 && rm -rf /tmp/wheels

# A fixed uid so the engine can run every exec as this user without a passwd lookup surprise.
RUN groupadd --gid 10001 judge \
 && useradd --uid 10001 --gid 10001 --no-create-home --home-dir /scratch --shell /bin/bash judge \
 && mkdir -p /case /scratch \
 && python3 -c "import openpyxl, docx, pptx, PIL, sqlite3, lxml" \
 && for tool in bash grep rg find jq file diff sqlite3 pdftotext timeout; do \
      command -v "$tool" >/dev/null || { echo "missing $tool" >&2; exit 1; }; \
    done

USER 10001:10001
WORKDIR /case
ENV HOME=/scratch TMPDIR=/tmp PYTHONDONTWRITEBYTECODE=1
CMD ["sleep", "infinity"]
