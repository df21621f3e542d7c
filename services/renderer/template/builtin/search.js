// Suggestions while typing in the search box: asks the site's own /search?suggest=<words>&locale=<language>.
const form = document.querySelector("form.search-form[data-locale]");
const input = form?.querySelector("input[type=search]");
const list = document.getElementById("suggestions");
let timer = 0;
let asked = "";
input?.addEventListener("input", () => {
  clearTimeout(timer);
  timer = setTimeout(async () => {
    const words = input.value.trim();
    if (words.length < 2 || words === asked) return;
    asked = words;
    const url = new URL(form.action, location.href);
    url.search = new URLSearchParams({
      suggest: words,
      locale: form.dataset.locale,
    }).toString();
    try {
      const answer = await (await fetch(url)).json();
      if (input.value.trim() !== words) return;
      list.replaceChildren(...answer.data.map((hit) => {
        const option = document.createElement("option");
        option.value = hit.title;
        return option;
      }));
    } catch { /* suggestions are optional; the form still searches */ }
  }, 150);
});
