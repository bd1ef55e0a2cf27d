// Progressive enhancement only: every page works without this script.
(function () {
  'use strict';

  // Copy buttons: <button data-copy="#input-id">
  document.addEventListener('click', function (event) {
    var button = event.target.closest('[data-copy]');
    if (!button) return;
    var input = document.querySelector(button.getAttribute('data-copy'));
    var status = button.parentElement.querySelector('.copy-status');
    if (!input) return;
    input.select();
    var done = function () {
      if (status) status.textContent = 'Copied to the clipboard.';
    };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(input.value).then(done, function () {
        if (status) status.textContent = 'Press Ctrl+C (or Cmd+C) to copy.';
      });
    } else {
      done();
    }
  });

  // Image uploads: files are read into base64 data URLs and sent as hidden "images" fields.
  document.addEventListener('submit', function (event) {
    var form = event.target;
    var picker = form.querySelector('input[type=file][data-images]');
    if (!picker || form.dataset.ready === '1' || picker.files.length === 0) return;
    event.preventDefault();
    // A core has 1 to 5 images: more is refused here, not cut to five without a word.
    var urls = form.querySelector('textarea[name=imageUrls]');
    var lines = urls
      ? urls.value.split('\n').filter(function (l) {
          return l.trim() !== '';
        }).length
      : 0;
    var error = form.querySelector('[data-images-error]');
    if (picker.files.length + lines > 5) {
      if (error) {
        error.textContent =
          'A core has 1 to 5 images: you chose ' + (picker.files.length + lines) + '. Choose at most 5.';
        error.hidden = false;
      }
      return;
    }
    if (error) error.hidden = true;
    var files = Array.prototype.slice.call(picker.files);
    Promise.all(
      files.map(function (file) {
        return new Promise(function (resolve, reject) {
          var reader = new FileReader();
          reader.onload = function () {
            resolve(reader.result);
          };
          reader.onerror = function () {
            reject(reader.error);
          };
          reader.readAsDataURL(file);
        });
      }),
    ).then(function (urls) {
      urls.forEach(function (url) {
        var hidden = document.createElement('input');
        hidden.type = 'hidden';
        hidden.name = 'images';
        hidden.value = url;
        form.appendChild(hidden);
      });
      picker.disabled = true;
      form.dataset.ready = '1';
      form.submit();
    });
  });
})();
