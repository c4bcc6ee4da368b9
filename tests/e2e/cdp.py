# Drive headless Chromium through the DevTools protocol over
# --remote-debugging-pipe (file descriptors 3 and 4: no websocket, so the
# standard library is enough), for what --dump-dom cannot do: click, type,
# read the address bar and sessionStorage.  t33 runs it with a list of
# steps, one per line:
#
#   open URL                  navigate
#   wait SECONDS EXPR         until the JavaScript EXPR is true, else fail
#   eval EXPR                 print "= " and the value as JSON
#   click SELECTOR            document.querySelector(SELECTOR).click()
#   type SELECTOR TEXT        set the field's value (an input event follows)
#   submit SELECTOR           the form's requestSubmit()
#   shot PATH                 a PNG of the page
#
# Every console message, uncaught exception and browser log entry
# (failed loads, CSP refusals) is printed as "console: LEVEL TEXT".
# Exit status 1 when a step fails.
#
#   cdp.py CHROME PROFILE_DIR STEPS_FILE
import base64
import fcntl
import json
import os
import subprocess
import sys
import time


class Browser:
    def __init__(self, chrome, profile):
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()

        def fds():  # the child's 3 and 4, as --remote-debugging-pipe wants
            r = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 10)
            w = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 10)
            os.dup2(r, 3)  # inheritable; every other descriptor of ours
            os.dup2(w, 4)  # is close-on-exec (PEP 446)

        self.proc = subprocess.Popen(
            [chrome, '--headless=new', '--no-sandbox', '--disable-gpu',
             '--no-first-run', '--no-default-browser-check',
             '--disable-extensions', '--disable-background-networking',
             '--disable-sync', '--disable-component-update',
             '--hide-scrollbars', '--force-color-profile=srgb',
             '--window-size=1400,1000', f'--user-data-dir={profile}',
             '--remote-debugging-pipe', 'about:blank'],
            preexec_fn=fds, close_fds=False,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buf = b''
        self.next_id = 0
        self.session = None
        self.console = []

    def close(self):
        try:
            self.send('Browser.close', session=False, wait=False)
            self.proc.wait(timeout=5)
        except Exception:
            pass
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def read_message(self, deadline):
        while b'\0' not in self.buf:
            if time.time() > deadline:
                raise TimeoutError('no answer from the browser')
            chunk = os.read(self.from_chrome, 65536)
            if not chunk:
                raise EOFError('the browser closed the pipe')
            self.buf += chunk
        msg, self.buf = self.buf.split(b'\0', 1)
        return json.loads(msg)

    def event(self, m):
        p = m.get('params', {})
        if m['method'] == 'Runtime.consoleAPICalled':
            text = ' '.join(str(a.get('value', a.get('description', '')))
                            for a in p.get('args', []))
            self.console.append(f"{p.get('type')} {text}")
        elif m['method'] == 'Runtime.exceptionThrown':
            d = p.get('exceptionDetails', {})
            self.console.append('exception ' + str(
                d.get('exception', {}).get('description', d.get('text'))))
        elif m['method'] == 'Log.entryAdded':
            e = p.get('entry', {})
            self.console.append(f"{e.get('level')} {e.get('text')} {e.get('url', '')}")

    def send(self, method, params=None, session=True, wait=True, timeout=20):
        self.next_id += 1
        msg = {'id': self.next_id, 'method': method, 'params': params or {}}
        if session and self.session:
            msg['sessionId'] = self.session
        os.write(self.to_chrome, json.dumps(msg).encode() + b'\0')
        if not wait:
            return None
        deadline = time.time() + timeout
        while True:
            m = self.read_message(deadline)
            if 'method' in m:
                self.event(m)
            elif m.get('id') == self.next_id:
                if 'error' in m:
                    raise RuntimeError(f"{method}: {m['error'].get('message')}")
                return m.get('result', {})

    def attach(self):
        target = self.send('Target.createTarget', {'url': 'about:blank'},
                           session=False)['targetId']
        self.session = self.send('Target.attachToTarget',
                                 {'targetId': target, 'flatten': True},
                                 session=False)['sessionId']
        for domain in ('Page', 'Runtime', 'Log'):
            self.send(f'{domain}.enable')

    def evaluate(self, expr):
        r = self.send('Runtime.evaluate', {'expression': expr,
                                           'returnByValue': True,
                                           'awaitPromise': True})
        if 'exceptionDetails' in r:
            raise RuntimeError(f'{expr}: ' + str(
                r['exceptionDetails'].get('exception', {}).get('description')))
        return r.get('result', {}).get('value')

    def pump(self, seconds):
        """Take the browser's events for a while (console messages)."""
        end = time.time() + seconds
        while time.time() < end:
            self.evaluate('0')
            time.sleep(0.05)


def js(s):
    return json.dumps(s)


def run(b, line):
    op, _, rest = line.partition(' ')
    if op == 'open':
        b.send('Page.navigate', {'url': rest})
    elif op == 'wait':
        secs, _, expr = rest.partition(' ')
        end = time.time() + float(secs)
        while True:
            try:  # a page being replaced has no context for a moment
                if b.evaluate(f'!!({expr})'):
                    break
            except RuntimeError:
                pass
            if time.time() > end:
                raise RuntimeError(f'not true within {secs} s: {expr}')
            time.sleep(0.1)
    elif op == 'eval':
        print('= ' + json.dumps(b.evaluate(rest)), flush=True)
    elif op == 'click':
        b.evaluate(f'document.querySelector({js(rest)}).click()')
    elif op == 'type':
        sel, _, text = rest.partition(' ')
        b.evaluate(f'(() => {{ const e = document.querySelector({js(sel)});'
                   f' e.value = {js(text)};'
                   f' e.dispatchEvent(new Event("input", {{bubbles: true}})); }})()')
    elif op == 'submit':
        b.evaluate(f'document.querySelector({js(rest)}).requestSubmit()')
    elif op == 'shot':
        png = b.send('Page.captureScreenshot', {'format': 'png'})['data']
        with open(rest, 'wb') as f:
            f.write(base64.b64decode(png))
    else:
        raise RuntimeError(f'unknown step: {line}')


def main(argv):
    if len(argv) != 4:
        print('usage: cdp.py CHROME PROFILE_DIR STEPS_FILE', file=sys.stderr)
        return 2
    with open(argv[3], encoding='utf-8') as f:
        steps = [l.rstrip('\n') for l in f if l.strip() and not l.startswith('#')]
    b = Browser(argv[1], argv[2])
    rc = 0
    try:
        b.attach()
        for line in steps:
            try:
                run(b, line)
            except Exception as e:
                print(f'step failed: {line[:120]}: {e}', flush=True)
                rc = 1
                break
        b.pump(0.3)
    finally:
        for c in b.console:
            print(f'console: {c}', flush=True)
        b.close()
    return rc


if __name__ == '__main__':
    sys.exit(main(sys.argv))
