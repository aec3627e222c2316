#!/usr/bin/env python3
"""Validates JUnit XML files (launchbench compare/run --format junit) against Scripts/junit.xsd.

Usage: Scripts/validate-junit.py FILE...   (needs `pip install xmlschema`)
Also checks that the suite's tests/failures/errors counts agree with its test cases.
Exit 0 when every file is valid, 1 otherwise.
"""
import os
import sys
import xml.etree.ElementTree as ET

try:
    import xmlschema
except ImportError:
    sys.exit("validate-junit: the Python package xmlschema is missing; install it with `pip install xmlschema`.")

schema = xmlschema.XMLSchema(os.path.join(os.path.dirname(os.path.abspath(__file__)), "junit.xsd"))
ok = True
for path in sys.argv[1:]:
    errors = list(schema.iter_errors(path))
    for error in errors:
        print(f"{path}: {error.reason} at {error.path}")
    if not errors:
        root = ET.parse(path).getroot()
        for suite in root.iter("testsuite"):
            cases = suite.findall("testcase")
            counted = {
                "tests": len(cases),
                "failures": sum(len(c.findall("failure")) > 0 for c in cases),
                "errors": sum(len(c.findall("error")) > 0 for c in cases),
            }
            for key, value in counted.items():
                if suite.get(key) is not None and int(suite.get(key)) != value:
                    errors.append(key)
                    print(f"{path}: testsuite {suite.get('name')!r} says {key}={suite.get(key)}, its test cases give {value}")
    print(f"{path}: {'valid' if not errors else 'INVALID'}")
    ok = ok and not errors
sys.exit(0 if ok else 1)
