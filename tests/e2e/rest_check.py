#!/usr/bin/python3
"""Check REST answers against the OpenAPI document the controller serves.

    rest_check.py OPENAPI.json DIR

DIR holds the exchanges t30_rest.sh recorded: N.meta ("METHOD PATH STATUS")
and N.body (the answer).  Each answer is validated (python3-jsonschema)
against the schema the document gives for its path, method and status
("default" when the status has none); N.bad exchanges are answers spoiled
on purpose, which must fail.  The document itself is checked first: every
$ref resolves, every schema is valid.  Prints one TAP-like line per check
("ok - ..." / "not ok - ..."), without numbers: the shell numbers them.
"""
import copy
import json
import os
import re
import sys

import jsonschema


def to_json_schema(node):
    """OpenAPI 3.0's schema dialect into JSON Schema (draft 4): nullable
    becomes a null type, OpenAPI-only keys go."""
    if isinstance(node, list):
        return [to_json_schema(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for k, v in node.items():
        if k.startswith('x-') or k in ('nullable', 'example', 'deprecated'):
            continue
        if k == 'properties':
            out[k] = {pk: to_json_schema(pv) for pk, pv in v.items()}
        else:
            out[k] = to_json_schema(v)
    if node.get('nullable') and 'type' in out:
        out['type'] = [out['type'], 'null']
    return out


def refs(node, found):
    if isinstance(node, dict):
        if '$ref' in node:
            found.append(node['$ref'])
        for v in node.values():
            refs(v, found)
    elif isinstance(node, list):
        for v in node:
            refs(v, found)


def template_re(path):
    """A path template as a regular expression (trailing '/' optional)."""
    parts = [re.escape(p) if not p.startswith('{') else '[^/]+'
             for p in path.strip('/').split('/')]
    return re.compile('^/' + '/'.join(parts) + '/?$')


def main():
    doc_path, rec_dir = sys.argv[1], sys.argv[2]
    with open(doc_path) as f:
        doc = json.load(f)
    failed = 0

    def report(good, what, why=''):
        nonlocal failed
        if good:
            print('ok - ' + what)
        else:
            failed += 1
            print('not ok - ' + what)
            for line in why.splitlines()[:12]:
                print('#   ' + line)

    js = to_json_schema(copy.deepcopy(doc))
    schemas = js['components']['schemas']
    found = []
    refs(doc, found)
    bad = [r for r in found
           if not r.startswith('#/components/schemas/')
           or r.split('/')[-1] not in schemas]
    report(not bad, 'openapi: every $ref of %d resolves' % len(found),
           'unresolved: ' + ', '.join(sorted(set(bad))))
    errs = []
    for name, s in schemas.items():
        try:
            jsonschema.Draft4Validator.check_schema(s)
        except jsonschema.SchemaError as e:
            errs.append('%s: %s' % (name, e.message))
    report(not errs, 'openapi: %d schemas are valid JSON Schema' % len(schemas),
           '\n'.join(errs))
    ops = sum(1 for p in doc['paths'].values() for m in p
              if m in ('get', 'post', 'delete'))
    report(doc.get('openapi', '').startswith('3.0') and ops > 0,
           'openapi: a 3.0 document with %d operations' % ops)

    resolver = jsonschema.RefResolver.from_schema(js)
    templates = sorted(doc['paths'],
                       key=lambda p: (p.count('{'), -len(p)))
    names = sorted(os.listdir(rec_dir), key=lambda n: (len(n), n))
    for name in names:
        if not name.endswith('.meta'):
            continue
        base = name[:-5]
        with open(os.path.join(rec_dir, name)) as f:
            method, path, status = f.read().split()
        spoiled = os.path.exists(os.path.join(rec_dir, base + '.bad'))
        body_file = os.path.join(rec_dir, base + ('.bad' if spoiled else '.body'))
        what = '%s %s %s' % (method, path, status)
        path = path.split('?')[0]
        tpl = next((t for t in templates if template_re(t).match(path)), None)
        op = doc['paths'].get(tpl, {}).get(method.lower()) if tpl else None
        if op is None:
            report(False, what + ': described by the document',
                   'no path item or method for it')
            continue
        resp = op['responses'].get(status) or op['responses'].get('default')
        if resp is None:
            report(False, what + ': status %s is described' % status)
            continue
        schema = resp['content']['application/json']['schema']
        schema = to_json_schema(schema)
        try:
            with open(body_file) as f:
                body = json.load(f)
        except ValueError as e:
            report(False, what + ': the answer is JSON', str(e))
            continue
        v = jsonschema.Draft4Validator(schema, resolver=resolver)
        problems = sorted(v.iter_errors(body), key=lambda e: list(e.path))
        why = '\n'.join('%s: %s' % ('/'.join(str(p) for p in e.path) or '.',
                                   e.message[:200]) for e in problems)
        label = tpl + (' ' + schema.get('$ref', '').split('/')[-1]
                       if '$ref' in schema else '')
        if spoiled:
            report(bool(problems),
                   what + ': a spoiled answer is refused by ' + label,
                   'it validated')
        else:
            report(not problems, what + ': matches ' + label, why)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
