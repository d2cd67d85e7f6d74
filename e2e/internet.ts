/**
 * A second local HTTP server playing "the internet" for capability tests:
 * JSON and CSV endpoints that allow browser requests (CORS `*`), one that
 * does not (`/no-cors`), one that holds its answer until released (`/hold`),
 * an image (`/pixel.png`), and one that sends the call on to another address
 * (`/redirect?status=302&to=URL`, with CORS headers, as a hostile server would),
 * and hostile "images" whose script copies the app's settings (with the API
 * key) to `localStorage["lm-stolen"]` if it ever runs at the app's origin:
 * `/evil.svg` (an SVG with a script), `/page.html` (HTML as text/html),
 * `/html-as.png` (HTML labelled image/png), and `/png-as-html` (a real PNG
 * labelled text/html). Records every request with its headers, so
 * tests can check what reached the server (and that nothing did).
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface InternetRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface Internet {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  /** The same server under another host name: `http://localhost:PORT`. */
  otherOrigin: string;
  port: number;
  /** Every request except CORS preflights. */
  requests: InternetRequest[];
  /** Answer the requests waiting on `/hold` (they are destroyed otherwise). */
  release(): void;
  /** Requests waiting on `/hold`. */
  readonly held: number;
  close(): Promise<void>;
}

/** A 1×1 PNG. */
const PIXEL = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

/** What a hostile document runs if it ever becomes a document of the app's origin. */
export const STEAL_SCRIPT = `localStorage.setItem("lm-stolen", localStorage.getItem("livemark.settings.v1") || "(no settings)")`;
const HOSTILE: Record<string, { type: string; body: string | Buffer }> = {
  "/evil.svg": {
    type: "image/svg+xml",
    body: `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/><script>${STEAL_SCRIPT}</script></svg>`,
  },
  "/page.html": { type: "text/html", body: `<!doctype html><title>chart</title><script>${STEAL_SCRIPT}</script>` },
  "/html-as.png": { type: "image/png", body: `<!doctype html><title>chart</title><script>${STEAL_SCRIPT}</script>` },
  "/png-as-html": { type: "text/html", body: PIXEL },
};

export const SALES_CSV = "month,sales\nJan,12\nFeb,19\nMar,7\n";

export async function startInternet(): Promise<Internet> {
  const requests: InternetRequest[] = [];
  const held: ServerResponse[] = [];
  const cors = {
    "access-control-allow-origin": "*",
    "access-control-allow-headers": "*",
    "access-control-allow-methods": "GET, POST, PUT, DELETE",
  };
  const server = createServer((request, response) => {
    if (request.method === "OPTIONS") {
      response.writeHead(204, cors);
      response.end();
      return;
    }
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      const path = new URL(request.url ?? "/", "http://x").pathname;
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers))
        headers[name] = Array.isArray(value) ? value.join(", ") : (value ?? "");
      requests.push({ method: request.method ?? "", path: request.url ?? "", headers, body });
      if (path === "/no-cors") {
        response.writeHead(200, { "content-type": "application/json" });
        response.end('{"secret":true}');
        return;
      }
      if (path === "/hold") {
        held.push(response);
        return;
      }
      if (path === "/redirect") {
        const query = new URL(request.url ?? "/", "http://x").searchParams;
        response.writeHead(Number(query.get("status") ?? 302), { location: query.get("to") ?? "/", ...cors });
        response.end();
        return;
      }
      const hostile = HOSTILE[path];
      if (hostile) {
        response.writeHead(200, { "content-type": hostile.type, ...cors });
        response.end(hostile.body);
        return;
      }
      if (path === "/pixel.png") {
        response.writeHead(200, { "content-type": "image/png", ...cors });
        response.end(PIXEL);
        return;
      }
      if (path === "/sales.csv") {
        response.writeHead(200, { "content-type": "text/csv", ...cors });
        response.end(SALES_CSV);
        return;
      }
      if (path === "/sales.json") {
        response.writeHead(200, { "content-type": "application/json", ...cors });
        response.end(
          JSON.stringify([
            { month: "Jan", sales: 12 },
            { month: "Feb", sales: 19 },
            { month: "Mar", sales: 7 },
          ]),
        );
        return;
      }
      response.writeHead(200, { "content-type": "application/json", ...cors });
      response.end(JSON.stringify({ path, method: request.method, body }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    otherOrigin: `http://localhost:${port}`,
    port,
    requests,
    get held() {
      return held.length;
    },
    release() {
      for (const response of held.splice(0)) {
        response.writeHead(200, { "content-type": "text/plain", ...cors });
        response.end("released");
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of held.splice(0)) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
