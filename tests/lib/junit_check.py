#!/usr/bin/python3
"""junit_check.py FILE...: is each FILE JUnit XML that Jenkins' xunit plugin
accepts?  The rules are those of its junit-10.xsd (jenkinsci/xunit-plugin,
src/main/resources/org/jenkinsci/plugins/xunit/types/model/xsd/junit-10.xsd),
written out here since no Debian package ships that schema: the elements
each element may hold, the attributes each one requires, the time's
pattern; and the counts a consumer shows (tests, failures, errors, skipped)
agree with the testcases.  Prints one line per problem; exit 0 when none."""
import re
import sys
import xml.etree.ElementTree as ET

# junit-10.xsd: SUREFIRE_TIME
TIME = re.compile(r"(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]*)?\Z")
# the children each element may hold, and its required attributes
CHILDREN = {
    "testsuites": {"testsuite"},
    "testsuite": {"testsuite", "properties", "testcase", "system-out", "system-err"},
    "testcase": {"skipped", "error", "failure", "rerunFailure", "rerunError", "flakyFailure",
                 "flakyError", "system-out", "system-err"},
    "properties": {"property"},
}
REQUIRED = {
    "testsuite": ("name", "tests", "failures", "errors"),
    "testcase": ("name",),
    "property": ("name", "value"),
    "rerunFailure": ("type",), "rerunError": ("type",),
    "flakyFailure": ("type",), "flakyError": ("type",),
}
TEXT_ONLY = {"failure", "error", "skipped", "system-out", "system-err", "property"}


def walk(e, where, problems):
    for a in REQUIRED.get(e.tag, ()):
        if a not in e.attrib:
            problems.append("%s: <%s> lacks the required attribute %s" % (where, e.tag, a))
    if e.tag in ("testsuite", "testsuites") and "time" in e.attrib and not TIME.match(e.get("time")):
        problems.append("%s: <%s time=%r> is not SUREFIRE_TIME" % (where, e.tag, e.get("time")))
    for c in e:
        if e.tag in TEXT_ONLY or c.tag not in CHILDREN.get(e.tag, set()):
            problems.append("%s: <%s> may not hold <%s>" % (where, e.tag, c.tag))
        walk(c, where + "/" + c.tag, problems)


def counts(suite, where, problems):
    cases = suite.findall("testcase")
    got = {"tests": len(cases),
           "failures": sum(c.find("failure") is not None for c in cases),
           "errors": sum(c.find("error") is not None for c in cases),
           "skipped": sum(c.find("skipped") is not None for c in cases)}
    for k, v in got.items():
        if k in suite.attrib and suite.get(k) != str(v):
            problems.append("%s: %s=%s but %d testcases say so" % (where, k, suite.get(k), v))
    return got


def check(path):
    problems = []
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError) as e:
        return ["%s: not XML: %s" % (path, e)]
    if root.tag not in ("testsuites", "testsuite"):
        return ["%s: the root is <%s>, not <testsuites> or <testsuite>" % (path, root.tag)]
    walk(root, path + ":" + root.tag, problems)
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    total = {"tests": 0, "failures": 0, "errors": 0}
    for s in suites:
        got = counts(s, "%s:testsuite[%s]" % (path, s.get("name")), problems)
        for k in total:
            total[k] += got[k]
    if root.tag == "testsuites":
        for k, v in total.items():
            if k in root.attrib and root.get(k) != str(v):
                problems.append("%s: testsuites %s=%s but its suites hold %d" % (path, k, root.get(k), v))
    return problems


if __name__ == "__main__":
    bad = [p for f in sys.argv[1:] for p in check(f)]
    print("\n".join(bad))
    sys.exit(1 if bad or len(sys.argv) < 2 else 0)
