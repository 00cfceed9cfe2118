"""A minimal legacy stdio MCP server (standard library only) whose one prompt, `notes`,
returns content to be drawn as what it is: a Markdown message with headings, nested
lists, a table, a link, Rust and Python fences and an escape sequence; a `text/markdown`
resource; and a PNG image (base64 the JSON previews fold). For trying the review by hand:

    [servers.md]
    command = "python3"
    args = ["tests/peers/markdown_server.py"]
"""

import base64
import json
import sys

NOTES = """# Release notes

Some *emphasis*, **strong**, ~~gone~~ and `inline code`; a server's \x1b[31mescape\x1b[0m shows.

## Checklist

1. Correctness
   - edge cases
     - empty input
   - error paths
2. Style, see the [style guide](https://example.com/style)

> Quoted advice
> on two lines.

---

| Area | Weight | Note |
|:-----|-------:|:----:|
| tests | 2 | most |
| docs | 1 | some |

```rust
fn main() {
    let answer: u32 = 42; // the answer
    println!("{answer}");
}
```

```python
def area(r):
    \"\"\"The area of a circle.\"\"\"
    return 3.14159 * r * r
```

![a diagram](https://example.com/diagram.png)
"""

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8).decode()


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    request = json.loads(line)
    method, rid = request.get("method"), request.get("id")
    if rid is None:
        continue
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "protocolVersion": "2025-06-18", "capabilities": {"prompts": {}},
            "serverInfo": {"name": "markdown", "version": "0"}}})
    elif method == "prompts/list":
        send({"jsonrpc": "2.0", "id": rid, "result": {"prompts": [
            {"name": "notes", "description": "Rich Markdown, a Markdown resource, an image"}]}})
    elif method == "prompts/get":
        send({"jsonrpc": "2.0", "id": rid, "result": {"messages": [
            {"role": "user", "content": {"type": "text", "text": NOTES}},
            {"role": "user", "content": {"type": "resource", "resource": {
                "uri": "file:///plan.md", "mimeType": "text/markdown",
                "text": "## Plan\n\n- [x] parse\n- [ ] render"}}},
            {"role": "user", "content": {"type": "image", "data": PNG, "mimeType": "image/png"}},
            {"role": "assistant", "content": {"type": "text", "text": "Noted."}},
        ]}})
    else:
        send({"jsonrpc": "2.0", "id": rid,
              "error": {"code": -32601, "message": "Method not found: %s" % method}})
