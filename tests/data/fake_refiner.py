"""A scripted refiner for whole-run tests (the ``command`` refiner engine): reads the refiner prompt on
stdin, finds which task just finished, and prints the answer scripted for it in the JSON file named by
argv[1] ({task id: answer}; CONTINUE when none). The answer "SLEEP" sleeps far past any test timeout."""

import json
import re
import sys
import time

prompt = sys.stdin.read()
finished = re.search(r"^Task just finished: .* \(id ([^,]+),", prompt, re.MULTILINE)
answers = json.loads(open(sys.argv[1]).read())  # noqa: SIM115
answer = answers.get(finished.group(1) if finished else "", "CONTINUE")
with open(sys.argv[1] + ".log", "a") as log:
    log.write(json.dumps({"finished": finished.group(1) if finished else None}) + "\n")
if answer == "SLEEP":
    time.sleep(300)
print(answer)
