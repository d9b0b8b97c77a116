// The organisers' console: each form[data-url] calls the service's API with the sign-in cookie (the
// browser sends this page's Origin, which the API checks), shows the answer, then reloads the page.
"use strict";

function body(form) {
  if (form.dataset.body) return form.dataset.body;
  const fields = {};
  for (const input of form.querySelectorAll("input[name]")) {
    if (input.value === "") continue;
    fields[input.name] = input.type === "number" ? Number(input.value) : input.value;
  }
  return Object.keys(fields).length ? JSON.stringify(fields) : null;
}

async function send(form) {
  const result = document.getElementById("console-result");
  if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) return;
  const payload = form.dataset.method === "DELETE" ? null : body(form);
  const response = await fetch(form.dataset.url, {
    method: form.dataset.method, credentials: "same-origin",
    headers: payload ? {"Content-Type": "application/json"} : {}, body: payload,
  });
  const text = await response.text();
  let said = text;
  try { const parsed = JSON.parse(text); said = parsed.error || JSON.stringify(parsed); } catch (e) { /* plain */ }
  result.textContent = `${form.dataset.method} ${form.dataset.url}: ${response.status} ${said}`;
  result.className = response.ok ? "ok" : "error";
  if (response.ok) setTimeout(() => window.location.reload(), 600);
}

for (const form of document.querySelectorAll("form[data-url]")) {
  form.addEventListener("submit", (event) => { event.preventDefault(); send(form); });
}
