// Form posts from the built-in template's form component, which works without JavaScript: the
// renderer forwards the submission to the public API and sends the visitor back to the page.

/** Bytes a submission may carry: 10 MiB of files and 64 KiB besides, as the API allows. */
const BODY_LIMIT = 10 * 1024 * 1024 + 64 * 1024;

/** The page the form sits on: a path on this site, never another host. */
function returnPath(value: FormDataEntryValue | null): string | null {
  if (typeof value !== "string") return null;
  return /^\/(?![/\\])[^\s]*$/.test(value) && value.length <= 2048
    ? value
    : null;
}

/** Who sent the post, named to the service with the shared forwarding key. */
export interface ForwardedVisitor {
  key: string;
  address: string;
}

/** The headers that name the visitor to the service, or none without a key or an address. */
function visitorHeaders(visitor: ForwardedVisitor | null): HeadersInit {
  return visitor
    ? {
      "x-stave-forwarding-key": visitor.key,
      "x-stave-visitor-address": visitor.address,
    }
    : {};
}

/**
 * Forwards `request` to `/v1/interactions/form.submit`. JSON posts go through as they are; a
 * browser's form post (multipart) loses the renderer's own `return` part and is answered with
 * `303` back to its page, which then shows the success text or what went wrong.
 */
export async function handleFormPost(
  request: Request,
  apiUrl: string,
  fetcher: typeof fetch,
  visitor: ForwardedVisitor | null = null,
): Promise<Response> {
  const target = `${apiUrl}/v1/interactions/form.submit`;
  const type = (request.headers.get("content-type") ?? "").split(";")[0].trim()
    .toLowerCase();
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > BODY_LIMIT) {
    return Response.json({
      error: {
        code: "payload_too_large",
        message: "The body holds at most 10 MiB of files and 64 KiB besides",
      },
    }, { status: 413 });
  }
  if (
    type !== "multipart/form-data" &&
    type !== "application/x-www-form-urlencoded"
  ) {
    const answer = await fetcher(target, {
      method: "POST",
      headers: {
        "content-type": request.headers.get("content-type") ?? "",
        ...visitorHeaders(visitor),
      },
      body: await request.arrayBuffer(),
    });
    return new Response(answer.body, {
      status: answer.status,
      headers: {
        "content-type": answer.headers.get("content-type") ??
          "application/json",
        "cache-control": "no-store",
      },
    });
  }
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    return Response.json({
      error: {
        code: "interaction_invalid",
        message: "The form body cannot be read",
      },
    }, { status: 400 });
  }
  const back = returnPath(form.get("return"));
  const section = form.get("section");
  form.delete("return");
  const answer = await fetcher(target, {
    method: "POST",
    body: form,
    headers: visitorHeaders(visitor),
  });
  const receipt = await answer.json().catch(() => null) as
    | { error?: { code?: string } }
    | null;
  if (!back || typeof section !== "string") {
    return Response.json(receipt, { status: answer.status });
  }
  const next = new URL(back, "http://site.invalid");
  next.searchParams.set("form", section);
  if (answer.ok) next.searchParams.set("sent", "1");
  else {next.searchParams.set(
      "error",
      receipt?.error?.code ?? "interaction_failed",
    );}
  next.hash = section;
  return new Response(null, {
    status: 303,
    headers: {
      location: next.pathname + next.search + next.hash,
      "cache-control": "no-store",
    },
  });
}
