"""Checks README.md's operator table against the public headers: every operator an aclnnop header declares
has a row naming that header, the CANN SoC behaviour poolgrad follows for it, and a docs page that exists.

    python3 check_readme_operator_table.py SOURCE_DIR
"""

import re
import sys
from pathlib import Path

SOC_WORDS = ("A2/A3", "A2", "950", "training", "GE op", "defined by poolgrad")


def main(source: Path) -> int:
    declared = {}
    for header in sorted((source / "include" / "aclnnop").glob("*.h")):
        for name in re.findall(r"ACLNN_API\s+aclnnStatus\s+(aclnn\w+)GetWorkspaceSize", header.read_text()):
            declared[name] = f"aclnnop/{header.name}"
    readme = (source / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Operators", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `aclnn")]
    problems = []
    for name, header in declared.items():
        matching = [row for row in rows if f"`{name}`" in row.split(" | ")[0]]
        if len(matching) != 1:
            problems.append(f"{name}: {len(matching)} rows of the README operator table name it (want 1)")
            continue
        cells = [cell.strip() for cell in matching[0].strip().strip("|").split(" | ")]
        if len(cells) != 4:
            problems.append(f"{name}: its row has {len(cells)} cells, want operator | header | CANN behaviour "
                            f"followed | docs")
            continue
        if f"`{header}`" not in cells[1]:
            problems.append(f"{name}: the row names header {cells[1]}, the operator is declared in {header}")
        if not any(word in cells[2] for word in SOC_WORDS):
            problems.append(f"{name}: the row does not say which CANN SoC's behaviour poolgrad follows "
                            f"({cells[2]!r})")
        link = re.search(r"\]\(([^)]+)\)", cells[3])
        if not link or not (source / link.group(1)).is_file():
            problems.append(f"{name}: the docs link {cells[3]!r} does not point to an existing page")
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"{len(declared)} operators checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
