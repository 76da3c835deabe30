(function () {
  'use strict';
  // The links come from this page's own URL, so they are right wherever the files are published
  // (https://user.github.io/repo/, a preview server, a custom domain). Opened from disk, the links
  // written at build time stay.
  // The addon's folder relative to the page's: '' for the install page, '../' for configure/.
  var UP = document.documentElement.getAttribute('data-addon-base') || '';
  // The configure page's form is never sent: its choice only changes the links.
  var form = document.getElementById('configure-form');
  if (form) form.addEventListener('submit', function (event) { event.preventDefault(); });
  if (location.protocol !== 'http:' && location.protocol !== 'https:') return;
  var folder = new URL(location.href);
  folder.search = '';
  folder.hash = '';
  // Opened as /repo, /repo/ or /repo/index.html: the page's folder is /repo/ (and likewise
  // /repo/configure, /repo/configure/ or …/index.html: /repo/configure/).
  folder.pathname = folder.pathname.replace(/\/index\.html?$/, '/').replace(/([^/])$/, '$1/');
  var base = new URL(UP, folder).href;
  function set(id, property, value) {
    var element = document.getElementById(id);
    if (element) element[property] = value;
  }
  function setLinks(manifestUrl) {
    set('install', 'href', manifestUrl.replace(/^https?:\/\//, 'stremio://'));
    set('web-install', 'href', 'https://web.stremio.com/#/addons?addon=' + encodeURIComponent(manifestUrl));
    set('manifest-link', 'href', manifestUrl);
    set('manifest-url', 'value', manifestUrl);
  }
  set('home', 'href', base);
  set('configure-link', 'href', base + 'configure/');

  // The configure page of an addon with options: each configuration is pre-built in a folder of
  // its own below the addon's root; the links are those of the one whose values are chosen.
  var data = document.getElementById('addon-data');
  data = data ? JSON.parse(data.textContent) : {};
  if (form && data.options) {
    var root = new URL(data.root, folder).href;
    // The chosen configuration's folder: each option's part for its value, joined in their order.
    var chosen = function () {
      var parts = [];
      for (var index = 0; index < data.options.length; index++) {
        var option = data.options[index];
        var field = document.getElementById('option-' + index);
        var value = option.type === 'checkbox' ? field.checked : field.value;
        var part = null;
        option.parts.forEach(function (pair) {
          if (pair[0] === value) part = pair[1];
        });
        if (part === null) return null;
        parts.push(part);
      }
      return parts.join(data.separator);
    };
    var update = function () {
      var segment = chosen();
      if (segment !== null) setLinks(new URL(segment + '/manifest.json', root).href);
    };
    form.addEventListener('change', update);
    update();
  } else {
    setLinks(base + 'manifest.json');
  }

  var copy = document.getElementById('copy');
  var input = document.getElementById('manifest-url');
  if (!copy || !input) return;
  var label = copy.textContent;
  copy.hidden = false;
  copy.addEventListener('click', function () {
    function done(copied) {
      copy.textContent = copied ? 'Copied' : 'Selected: copy it';
      setTimeout(function () { copy.textContent = label; }, 2500);
    }
    function selectAndCopy() {
      input.focus();
      input.select();
      var copied = false;
      try { copied = document.execCommand('copy'); } catch (e) { /* not allowed here */ }
      done(copied);
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(input.value).then(function () { done(true); }, selectAndCopy);
    } else {
      selectAndCopy();
    }
  });
})();
